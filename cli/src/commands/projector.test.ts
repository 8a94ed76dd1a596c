import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { createKafka, endpointsFromEnv, suffixedTopicNames } from "@a2a-ledger/kafka";

const run = promisify(execFile);
const bin = new URL("../../bin/a2a-ledger.js", import.meta.url).pathname;

describe("a2a-ledger projector", () => {
  it("refuses anything but `rebuild` with the usage and exit code 2", async () => {
    const failed = await run(process.execPath, [bin, "projector", "rebuid"]).catch((e: { code: number; stderr: string }) => e);
    expect(failed).toMatchObject({ code: 2 });
    expect((failed as { stderr: string }).stderr).toContain("usage: a2a-ledger projector rebuild");
  });

  it("rebuild runs the projector's own entry point as a child process and exits 0 once the new views are active", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cli-projector-"));
    const suffix = `cli-rebuild-${randomUUID().slice(0, 8)}`;
    try {
      const { stdout } = await run(process.execPath, [bin, "projector", "rebuild"], {
        env: { ...process.env, A2A_LEDGER_TOPIC_SUFFIX: suffix, A2A_LEDGER_PROJECTOR_SQLITE_PATH: join(dir, "projector.sqlite"), A2A_LEDGER_KAFKA_LOG_LEVEL: "nothing" },
        timeout: 150_000,
      });
      expect(stdout).toContain('"the rebuilt views are active"');
      expect(stdout).toMatch(/"msg":"rebuild done"/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      const admin = createKafka({ brokers: endpointsFromEnv().brokers, clientId: "cli-projector-test" }).admin();
      await admin.connect();
      await admin.deleteTopics({ topics: Object.values(suffixedTopicNames(suffix)) }).catch(() => undefined);
      await admin.disconnect();
    }
  }, 180_000);
});
