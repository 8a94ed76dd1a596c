/**
 * The memory budget against the real broker: observations of correlations beyond it are neither decided
 * nor committed while it is reached, and a restart with a higher budget decides them, exactly once.
 */
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultRuleSet, replay } from "@a2a-ledger/core";
import {
  byCorrelation,
  fixture,
  kafkaSuite,
  produce,
  readDecisions,
  seededPolicy,
  startInProcess,
  waitForGroupAtEnd,
} from "../test/harness.ts";
import { lostTask } from "../test/correlation-states.ts";
import type { Reconciler } from "./reconciler.ts";

const { admin, fixtures, running } = kafkaSuite({ beforeAll, afterAll });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function live(reconciler: Reconciler): Promise<number> {
  return (await reconciler.metrics.liveCorrelations.get()).values.reduce((n, v) => n + v.value, 0);
}

async function committed(groupId: string, topic: string): Promise<number> {
  const [offsets] = await admin.fetchOffsets({ groupId, topics: [topic] });
  return (offsets?.partitions ?? []).reduce((n, p) => n + Math.max(0, Number(p.offset)), 0);
}

describe("the reconciler's memory budget on Kafka", () => {
  it("holds observations of correlations beyond the budget undecided and uncommitted, and decides them exactly once when the budget allows", async () => {
    const f = await fixture(admin, "budget", { A2A_LEDGER_RECONCILER_MAX_CORRELATIONS: "3" });
    fixtures.push(f);
    // Eight lost tasks, each correlation's three observations together: a partition's admitted
    // correlations are its first ones, so exactly three correlations (nine observations) go through.
    const log = Array.from({ length: 8 }, (_, i) => lostTask(`budget-${i}`, Date.UTC(2026, 0, 1) + i * 100)).flat();
    const expected = byCorrelation(replay(log, defaultRuleSet, { policy: seededPolicy() }));
    expect(Object.keys(expected)).toHaveLength(8);

    const first = await startInProcess(f);
    await produce(f.topics.observations, log);
    const deadline = Date.now() + 60_000;
    while ((await live(first)) < 3 && Date.now() < deadline) await sleep(200);
    // The admitted correlations' transaction commits (however slow the coordinator), …
    while ((await committed(f.groupId, f.topics.observations)) < 9 && Date.now() < deadline) await sleep(200);
    // … then time for a batch that would wrongly go beyond the budget to commit too.
    await sleep(4_000);
    expect(await live(first)).toBe(3);
    expect((await first.metrics.maxCorrelations.get()).values[0]?.value).toBe(3);
    expect(
      await committed(f.groupId, f.topics.observations),
      "only the admitted correlations' observations are committed",
    ).toBe(9);
    // Not ready while observations wait for room, and saying why.
    const server = await first.metrics.serve(0, () => first.isRunning);
    try {
      const ready = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ status: "correlation budget reached", live: 3, max: 3 });
    } finally {
      server.close();
    }
    const held = byCorrelation(await readDecisions(f.topics.decisions));
    expect(Object.keys(held)).toHaveLength(3);
    for (const [id, decisions] of Object.entries(held)) expect(decisions).toEqual(expected[id]);
    await first.stop();

    const second = await startInProcess(f, { A2A_LEDGER_RECONCILER_MAX_CORRELATIONS: "100" });
    running.push(second);
    await waitForGroupAtEnd(admin, f);
    expect(await live(second)).toBe(8);
    expect(byCorrelation(await readDecisions(f.topics.decisions)), "every correlation decided, none twice").toEqual(
      expected,
    );
  }, 180_000);
});
