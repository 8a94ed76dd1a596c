/**
 * Exactly once, the hard way: reconciler processes are killed with SIGKILL at random moments under a
 * steady stream of observations and restarted; at the end the committed decisions must equal the
 * pure replay of every observation — nothing lost, nothing duplicated. The replay is the oracle.
 */
import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultRuleSet, replay } from "@a2a-ledger/core";
import { generateLog, prng } from "@a2a-ledger/core/testing";
import type { Admin } from "@a2a-ledger/kafka";
import { byCorrelation, deleteTopics, type Fixture, fixture, kafka, killHard, parseLines, produce, readDecisions, serde, startChild, waitForGroupAtEnd } from "../test/harness.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const seed = Number(process.env.CRASH_TEST_SEED ?? Date.now() % 1_000_000);
const log = parseLines(generateLog(Number(process.env.CRASH_TEST_OBSERVATIONS ?? 4_000), { refreshEvery: Number.MAX_SAFE_INTEGER }));
const capabilityPhase = log.filter((o) => o.correlationId.startsWith("probe-"));
const stream = log.filter((o) => !o.correlationId.startsWith("probe-"));

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

async function expectReplayEquivalence(f: Fixture): Promise<void> {
  await waitForGroupAtEnd(admin, f, 180_000);
  const expected = replay(log, defaultRuleSet);
  const decisions = await readDecisions(f.topics.decisions, expected.length + 1, 10_000);
  const ids = decisions.map((d) => d.decisionId);
  expect(new Set(ids).size, "no decision committed twice").toBe(ids.length);
  expect(decisions.length).toBe(expected.length);
  expect(byCorrelation(decisions)).toEqual(byCorrelation(expected));
}

describe(`reconciler crashes (seed ${seed})`, () => {
  it("killed with SIGKILL five times under a steady stream, commits exactly the decisions of the pure replay", async () => {
    const f = await fixture(admin, "crash");
    fixtures.push(f);
    const random = prng(seed);
    let child = await startChild(f, "crash-0");
    children.push(child);
    await produce(f.topics.observations, capabilityPhase);
    await waitForGroupAtEnd(admin, f);
    let kills = 0;
    await streamWhile(f, async () => {
      for (let i = 1; i <= 5; i++) {
        await sleep(800 + Math.floor(random() * 2_500));
        await killHard(child);
        kills++;
        child = await startChild(f, `crash-${i}`);
        children.push(child);
      }
    });
    expect(kills).toBe(5);
    await expectReplayEquivalence(f);
  }, 420_000);

  it("splits the partitions between two instances; killing one moves its partitions to the other with the same end result", async () => {
    const f = await fixture(admin, "pair");
    fixtures.push(f);
    const a = await startChild(f, "pair-a");
    const b = await startChild(f, "pair-b");
    children.push(a, b);
    await produce(f.topics.observations, capabilityPhase);
    await waitForGroupAtEnd(admin, f);
    const before = await membersWithPartitions(f.groupId);
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
    return { clientId: m.clientId, partitions: Object.values(assignment?.assignment ?? {}).flat().sort((x, y) => x - y) };
  });
}
