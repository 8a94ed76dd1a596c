/**
 * Exactly once, the hard way: reconciler processes are killed with SIGKILL at random moments under a
 * steady stream of observations — tasks, and card refreshes and probes, so capability snapshots are
 * being written when the kills land — and restarted; at the end the committed decisions must equal the
 * replay of every observation in the order the reconciler recorded, nothing lost, nothing duplicated. The
 * replay is the oracle. The test
 * also proves that kills landed inside open transactions: records a read_uncommitted reader saw that a
 * read_committed reader never sees (aborted transactions' data).
 */
import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateLog, prng } from "@a2a-ledger/core/testing";
import { randomUUID } from "node:crypto";
import { cardHash, lifecycleExtensionUri } from "@a2a-ledger/core";
import type { Observation } from "@a2a-ledger/schemas";
import type { Admin } from "@a2a-ledger/kafka";
import { killHard } from "@a2a-ledger/env/testing";
import {
  byCorrelation,
  deleteTopics,
  type Fixture,
  fixture,
  kafka,
  parseLines,
  produce,
  readDecisions,
  serde,
  startChild,
  waitForGroupAtEnd,
} from "../test/harness.ts";
import { replayInRecordedOrder } from "../test/recorded-replay.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const seed = Number(process.env.CRASH_TEST_SEED ?? Date.now() % 1_000_000);
const generated = parseLines(
  generateLog(Number(process.env.CRASH_TEST_OBSERVATIONS ?? 4_000), { refreshEvery: Number.MAX_SAFE_INTEGER }),
);

/**
 * Spare workers, whose cards are refreshed and probed throughout the stream: their snapshots are written
 * while processes are killed. They offer another skill than the tasks', so the task decisions do not
 * depend on when another partition's snapshot becomes visible (the cross-partition timing of a card
 * change is a documented limit; re-examination closes it only for blocked correlations).
 */
const spares = ["w-spare-a", "w-spare-b"];
const spareCard = (w: string, version: number) => ({
  name: w,
  version: `2.${version}`,
  provider: { organization: "Spare" },
  capabilities: {
    extensions: [
      { uri: lifecycleExtensionUri, params: { states: ["submitted", "working", "completed"], taskStore: "ephemeral" } },
    ],
  },
  defaultOutputModes: ["text/plain"],
  skills: [{ id: "translate", outputModes: ["text/plain"] }],
});
function spareObservations(w: string, version: number, at: number): Observation[] {
  const card = spareCard(w, version);
  const base = { correlationId: `probe-${w}`, observer: "dispatcher", workerId: w };
  return parseLines([
    JSON.stringify({
      ...base,
      type: "AgentCardObserved",
      eventId: randomUUID(),
      occurredAt: at,
      cardUrl: `http://${w}/card`,
      card,
      cacheMaxAgeSeconds: 60,
    }),
    JSON.stringify({
      ...base,
      type: "ProbeCompleted",
      eventId: randomUUID(),
      occurredAt: at + 1,
      cardHash: cardHash(card),
      skillId: "translate",
      statesObserved: ["TASK_STATE_WORKING", "TASK_STATE_COMPLETED"],
      reobservable: ["TASK_STATE_WORKING", "TASK_STATE_COMPLETED"],
      emittedModes: ["text/plain"],
    }),
  ]);
}
const capabilityPhase = [
  ...generated.filter((o) => o.correlationId.startsWith("probe-")),
  ...spares.flatMap((w) => spareObservations(w, 0, 1)),
];
const stream: Observation[] = [];
generated
  .filter((o) => !o.correlationId.startsWith("probe-"))
  .forEach((o, i) => {
    stream.push(o);
    if (i % 60 === 59) stream.push(...spareObservations(spares[(i / 60) % 2 < 1 ? 0 : 1] as string, i, o.occurredAt));
  });
const log = [...capabilityPhase, ...stream];
/**
 * Where the bursts below are dated: just after the log, so they are the newest cards and probes, and the
 * stream time they carry stays within the retention horizons (dated years ahead, they made the reconciler
 * evict the open correlations of their partition, which the replay without retention does not).
 */
const afterLog = Math.max(...log.map((o) => o.occurredAt)) + 1_000;

let admin: Admin;
const fixtures: Fixture[] = [];
const children: ChildProcess[] = [];

beforeAll(async () => {
  admin = kafka.admin();
  await admin.connect();
  await serde.registerAll();
});
afterAll(async () => {
  for (const c of children) await killHard(c);
  for (const f of fixtures) await deleteTopics(admin, f);
  await admin.disconnect();
});

/** Produces the stream in small chunks at a steady pace while `during` runs. */
async function streamWhile(f: Fixture, during: () => Promise<void>): Promise<void> {
  let produced = 0;
  const producing = (async () => {
    for (let i = 0; i < stream.length; i += 40) {
      await produce(f.topics.observations, stream.slice(i, i + 40));
      produced += Math.min(40, stream.length - i);
      await sleep(120);
    }
  })();
  await during();
  await producing;
  expect(produced).toBe(stream.length);
}

/**
 * The committed decisions equal the replay of what was produced (`extra` beyond the shared log), in the
 * order the reconciler's transactions recorded: under the default rule set a lost task is evidence about
 * its worker for every correlation, so the order partitions were folded in matters. Every observation
 * was folded by exactly one committed batch.
 */
async function expectReplayEquivalence(f: Fixture, extra: readonly Observation[] = []): Promise<void> {
  await waitForGroupAtEnd(admin, f, 180_000);
  const recorded = await replayInRecordedOrder(f);
  expect(recorded.observations).toBe(log.length + extra.length);
  expect(recorded.covered, "every observation in a committed batch").toBe(recorded.observations);
  expect(recorded.refolds, "observations folded by two committed batches").toEqual([]);
  const expected = recorded.decisions;
  const decisions = await readDecisions(f.topics.decisions);
  const ids = decisions.map((d) => d.decisionId);
  expect(new Set(ids).size, "no decision committed twice").toBe(ids.length);
  expect(decisions.length).toBe(expected.length);
  expect(byCorrelation(decisions)).toEqual(byCorrelation(expected));
}

/** Counts the data records of topics as a reader of the given isolation level sees them. */
async function counting(topics: string[], readUncommitted: boolean) {
  const consumer = kafka.consumer({ groupId: `crash-count-${randomUUID()}`, readUncommitted, maxWaitTimeInMs: 100 });
  let count = 0;
  await consumer.connect();
  for (const topic of topics) await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({ eachBatch: async ({ batch }) => void (count += batch.messages.length) });
  return { count: () => count, stop: () => consumer.disconnect() };
}

/** Waits until a counter stops moving for `quietMs`. */
async function settled(counter: { count(): number }, quietMs = 3_000): Promise<number> {
  let last = -1;
  while (counter.count() !== last) {
    last = counter.count();
    await sleep(quietMs);
  }
  return last;
}

describe(`reconciler crashes (seed ${seed})`, () => {
  it("killed with SIGKILL under a stream of tasks, card refreshes and probes, commits exactly the decisions of the replay in its recorded order, with kills inside open transactions", async () => {
    const f = await fixture(admin, "crash");
    fixtures.push(f);
    const random = prng(seed);
    const outputs = [f.topics.decisions, f.topics.changelog, f.topics.capabilities];
    const uncommitted = await counting(outputs, true);
    const committedOnly = await counting(outputs, false);
    let child = await startChild(f, "crash-0");
    children.push(child);
    await produce(f.topics.observations, capabilityPhase);
    await waitForGroupAtEnd(admin, f);
    let kills = 0;
    const kill = async () => {
      await killHard(child);
      kills++;
      child = await startChild(f, `crash-${kills}`);
      children.push(child);
    };
    await streamWhile(f, async () => {
      for (let i = 1; i <= 5; i++) {
        await sleep(800 + Math.floor(random() * 2_500));
        await kill();
      }
    });
    await waitForGroupAtEnd(admin, f, 180_000);
    // Kills at random moments may all land between transactions; then kill the moment a transaction's
    // records are visible to the read_uncommitted reader but not yet to the read_committed one (bounded).
    let aborted = (await settled(uncommitted)) - (await settled(committedOnly));
    const bursts: Observation[] = [];
    for (let round = 0; aborted === 0 && round < 10; round++) {
      const burst = Array.from({ length: 60 }, (_, i) =>
        spareObservations(spares[i % 2] as string, 10_000 + round * 100 + i, afterLog + (round * 100 + i) * 10),
      ).flat();
      bursts.push(...burst);
      const [seenUncommitted, seenCommitted] = [uncommitted.count(), committedOnly.count()];
      await produce(f.topics.observations, burst);
      for (let waited = 0; waited < 10_000; waited += 2) {
        if (uncommitted.count() > seenUncommitted && committedOnly.count() === seenCommitted) break;
        await sleep(2);
      }
      await kill();
      await waitForGroupAtEnd(admin, f, 120_000);
      aborted = (await settled(uncommitted)) - (await settled(committedOnly));
    }
    await uncommitted.stop();
    await committedOnly.stop();
    console.log(
      `crash test: ${kills} kills, ${aborted} records of aborted transactions seen by a read_uncommitted reader`,
    );
    expect(aborted, "at least one kill landed inside an open transaction").toBeGreaterThan(0);
    await expectReplayEquivalence(f, bursts);
  }, 900_000);

  it("splits the partitions between two instances; killing one moves its partitions to the other with the same end result", async () => {
    const f = await fixture(admin, "pair");
    fixtures.push(f);
    const a = await startChild(f, "pair-a");
    const b = await startChild(f, "pair-b");
    children.push(a, b);
    await produce(f.topics.observations, capabilityPhase);
    await waitForGroupAtEnd(admin, f);
    // "started" is logged before the group has settled: wait (bounded) for the rebalance that gives both instances partitions.
    let before = await membersWithPartitions(f.groupId);
    for (let i = 0; i < 120 && !(before.length === 2 && before.every((m) => m.partitions.length > 0)); i++) {
      await sleep(500);
      before = await membersWithPartitions(f.groupId);
    }
    expect(before).toHaveLength(2);
    expect(before.every((m) => m.partitions.length > 0)).toBe(true);
    await streamWhile(f, async () => {
      await sleep(2_000);
      await killHard(a);
    });
    await expectReplayEquivalence(f);
    const after = await membersWithPartitions(f.groupId);
    expect(after).toHaveLength(1);
    expect(after[0]?.partitions).toEqual([0, 1, 2, 3, 4, 5]);
  }, 420_000);
});

async function membersWithPartitions(groupId: string): Promise<{ clientId: string; partitions: number[] }[]> {
  const { AssignerProtocol } = await import("kafkajs");
  const { groups } = await admin.describeGroups([groupId]);
  return (groups[0]?.members ?? []).map((m) => {
    const assignment = AssignerProtocol.MemberAssignment.decode(m.memberAssignment);
    return {
      clientId: m.clientId,
      partitions: Object.values(assignment?.assignment ?? {})
        .flat()
        .sort((x, y) => x - y),
    };
  });
}
