import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { freshStory } from "./up.ts";

const run = promisify(execFile);
const bin = new URL("../../bin/a2a-ledger.js", import.meta.url).pathname;

describe("a2a-ledger up --demo", () => {
  it("makes every id of the story fresh, so a second demo is a first contact again", () => {
    const a = freshStory("run-a");
    const b = freshStory("run-b");
    expect(a.length).toBeGreaterThan(10);
    for (const [i, o] of a.entries()) {
      expect(o.correlationId).toMatch(/^run-a-/);
      expect(o.workerId).toMatch(/^run-a-/);
      expect(o.eventId).not.toBe(b[i]?.eventId);
    }
  });

  it("posts the DESIGN §1 story through the ingest API and the reconciler commits the decisions the replay predicts", async () => {
    const suffix = `up-${randomUUID().slice(0, 8)}`;
    const { stdout } = await run(process.execPath, [bin, "up", "--demo", "--exit-after-demo"], {
      env: { ...process.env, A2A_LEDGER_TOPIC_SUFFIX: suffix, A2A_LEDGER_RECONCILER_GROUP: `reconciler-${suffix}`, INGEST_PORT: "0", PROJECTOR_PORT: "0", PROJECTOR_SQLITE_PATH: join(tmpdir(), `projector-${suffix}.sqlite`), A2A_LEDGER_KAFKA_LOG_LEVEL: "nothing" },
      timeout: 150_000,
    });
    expect(stdout).toMatch(/TaskIndeterminate \S+-w-acme task acme-7f3a: last state TASK_STATE_INPUT_REQUIRED/);
    expect(stdout).toMatch(/RedispatchCommanded \S+-w-acme → \S+-w-gamma attempt 2, resume TASK_STATE_INPUT_REQUIRED/);
    expect(stdout).toMatch(/11 decisions committed, the ones the file replay predicts/);
    expect(stdout).not.toMatch(/TaskFailed/);
    expect(stdout).toMatch(/^projector: http:\/\/127\.0\.0\.1:\d+\/ /m);
  }, 180_000);
});
