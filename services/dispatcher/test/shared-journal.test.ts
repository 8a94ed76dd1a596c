/**
 * Two dispatchers sharing one journal (as dispatchers of one group on one machine do) that both get the
 * same re-dispatch — a rebalance redelivered it while the first was still carrying it out — send it to
 * the worker once: `begin` lets both through, and the compare-and-set into `sending` lets only the latest
 * delivery send. In process, against a real `@a2a-js/sdk` mesh worker and an ingest stand-in that keeps
 * what it is sent.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "@a2a-ledger/logging";
import { startJsAgent, type RunningJsAgent } from "@a2a-ledger/mesh-agents";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.ts";
import { Dispatcher } from "../src/dispatcher.ts";
import { createMetrics } from "../src/metrics.ts";
import { redispatchCommand } from "./commands.ts";
import { type RecordingIngest, startRecordingIngest } from "./recording-ingest.ts";

const dir = mkdtempSync(join(tmpdir(), "dispatcher-shared-"));
let agent: RunningJsAgent;
let ingest: RecordingIngest;

beforeAll(async () => {
  agent = await startJsAgent({ kind: "w1" });
  ingest = await startRecordingIngest();
});
afterAll(async () => {
  await agent?.close();
  await ingest?.close();
});

const command = redispatchCommand("shared");

describe("two dispatchers sharing a journal, one command delivered to both", () => {
  it("send it to the worker once: the earlier delivery stands down before sending", async () => {
    const workers = join(dir, "workers.json");
    writeFileSync(
      workers,
      JSON.stringify({ workers: { W1: { url: agent.url, skills: { answer: { redispatch: { message: "again" } } } } } }),
    );
    const metrics = [createMetrics(), createMetrics()];
    const [first, second] = metrics.map(
      (m) =>
        new Dispatcher(
          loadConfig({
            A2A_LEDGER_DISPATCHER_WORKERS_FILE: workers,
            A2A_LEDGER_DISPATCHER_JOURNAL_PATH: join(dir, "shared.sqlite"),
            A2A_LEDGER_DISPATCHER_INGEST_URL: ingest.url,
            A2A_LEDGER_DISPATCHER_LOG_LEVEL: "silent",
          }),
          createLogger("dispatcher", "silent"),
          m,
        ),
    ) as [Dispatcher, Dispatcher];
    try {
      // The second delivery begins while the first is still fetching the card: both pass `begin`.
      await Promise.all([
        first.execute(command, { topic: "a2a.commands.v1", partition: 0, offset: "3" }),
        second.execute(command, { topic: "a2a.commands.v1", partition: 0, offset: "3" }),
      ]);
      const dispatched = ingest.received.flat().filter((o) => o.type === "TaskDispatched");
      expect(dispatched, "sent to the worker once").toHaveLength(1);
      expect(first.journal.get(command.decisionId)).toMatchObject({ status: "done", deliveries: 2 });
      const duplicates = async (i: 0 | 1) =>
        (await (metrics[i] as ReturnType<typeof createMetrics>).commands.get()).values.find(
          (v) => v.labels.outcome === "duplicate",
        )?.value ?? 0;
      expect([await duplicates(0), await duplicates(1)]).toEqual([1, 0]);
    } finally {
      await first.stop();
      await second.stop();
    }
  }, 60_000);
});
