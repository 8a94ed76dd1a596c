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
    const failed = await run(process.execPath, [bin, "projector", "rebuid"]).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect(failed).toMatchObject({ code: 2 });
    expect((failed as { stderr: string }).stderr).toContain("usage: a2a-ledger projector rebuild");
  });

  it("prune needs `--before <date>`; a date the projector cannot read is a usage error with its reason", async () => {
    for (const args of [
      ["prune"],
      ["prune", "--before"],
      ["prune", "2025-01-01"],
      ["prune", "--before", "2025-01-01", "extra"],
    ]) {
      const failed = await run(process.execPath, [bin, "projector", ...args]).catch(
        (e: { code: number; stderr: string }) => e,
      );
      expect(failed, args.join(" ")).toMatchObject({ code: 2 });
      expect((failed as { stderr: string }).stderr).toContain("a2a-ledger projector prune --before <ISO date");
    }
    const bad = await run(process.execPath, [bin, "projector", "prune", "--before", "last week"], {
      env: { ...process.env, A2A_LEDGER_PROJECTOR_SQLITE_PATH: "/nonexistent/never.sqlite" },
    }).catch((e: { code: number; stderr: string }) => e);
    expect(bad).toMatchObject({ code: 2 });
    expect((bad as { stderr: string }).stderr).toContain("--before: expected an ISO-8601 date");
  });

  it("prune runs the projector's own entry point on its database alone (no Kafka) and exits 0 with what it removed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cli-projector-"));
    try {
      const { stdout } = await run(process.execPath, [bin, "projector", "prune", "--before", "2025-01-01"], {
        env: {
          ...process.env,
          A2A_LEDGER_PROJECTOR_SQLITE_PATH: join(dir, "projector.sqlite"),
          KAFKA_BROKERS: "127.0.0.1:1",
        },
        timeout: 60_000,
      });
      expect(stdout).toMatch(/"correlations":0,.*"msg":"prune done"/);
      expect(stdout).toContain('"before":"2025-01-01T00:00:00.000Z"');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);

  it("rebuild runs the projector's own entry point as a child process and exits 0 once the new views are active", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cli-projector-"));
    const suffix = `cli-rebuild-${randomUUID().slice(0, 8)}`;
    try {
      const { stdout } = await run(process.execPath, [bin, "projector", "rebuild"], {
        env: {
          ...process.env,
          A2A_LEDGER_TOPIC_SUFFIX: suffix,
          A2A_LEDGER_PROJECTOR_SQLITE_PATH: join(dir, "projector.sqlite"),
          A2A_LEDGER_KAFKA_LOG_LEVEL: "nothing",
        },
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
