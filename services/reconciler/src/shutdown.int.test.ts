/**
 * The reconciler as an operator runs it: SIGTERM ends it cleanly, and its metrics endpoint reports
 * what it committed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Admin } from "@a2a-ledger/kafka";
import {
  deleteTopics,
  type Fixture,
  fixture,
  kafka,
  parseLines,
  produce,
  serde,
  startChild,
  waitForGroupAtEnd,
} from "../test/harness.ts";
import { generateLog } from "@a2a-ledger/core/testing";

let admin: Admin;
const fixtures: Fixture[] = [];
const log = parseLines(generateLog(600, { refreshEvery: Number.MAX_SAFE_INTEGER }));

beforeAll(async () => {
  admin = kafka.admin();
  await admin.connect();
  await serde.registerAll();
});
afterAll(async () => {
  for (const f of fixtures) await deleteTopics(admin, f);
  await admin.disconnect();
});

describe("the reconciler process", () => {
  it("serves its metrics, and on SIGTERM leaves the group and exits 0 with everything committed", async () => {
    const port = 18_400 + (process.pid % 500);
    const f = await fixture(admin, "shutdown", { A2A_LEDGER_RECONCILER_METRICS_PORT: String(port) });
    fixtures.push(f);
    const child = await startChild(f, "shutdown-1");
    await produce(f.topics.observations, log);
    await waitForGroupAtEnd(admin, f);

    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(health.status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toMatch(new RegExp(`^a2a_reconciler_observations_total ${log.length}$`, "m"));
    expect(metrics).toMatch(/^a2a_reconciler_decisions_total\{kind="ProbeRequested"\} 5$/m);
    expect(metrics).toMatch(/^a2a_reconciler_transaction_commits_total [1-9]\d*$/m);
    expect(metrics).toMatch(/^a2a_reconciler_lag\{partition="\d"\} 0$/m);
    expect(metrics).toMatch(/^a2a_reconciler_max_correlations [1-9]\d*$/m);
    expect(metrics).toMatch(/^a2a_reconciler_live_correlations\{partition="\d"\} [1-9]\d*$/m);

    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    const stoppedAt = Date.now();
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(Date.now() - stoppedAt).toBeLessThan(15_000);
    const { groups } = await admin.describeGroups([f.groupId]);
    expect(groups[0]?.members ?? []).toHaveLength(0);
  }, 120_000);
});
