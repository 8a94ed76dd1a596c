import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ensureTopics,
  PartitionDisagreementError,
  partitionOf,
  suffixedTopicNames,
  topicSpecs,
} from "@a2a-ledger/kafka";
import type { Observation } from "@a2a-ledger/schemas";
import {
  type Fixture,
  kafkaSuite,
  designSection1Story,
  produce,
  quietLog,
  readAll,
  startInProcess,
  waitForGroupAtEnd,
} from "../test/harness.ts";
import { loadReconcilerConfig } from "./config.ts";
import { Reconciler } from "./reconciler.ts";

const { story, capabilityPhase, taskPhase } = designSection1Story();

/** The task story of DESIGN §1 under another correlation id (and server task ids of its own). */
function taskStory(correlationId: string): Observation[] {
  return taskPhase.map(
    (o) =>
      ({
        ...o,
        correlationId,
        ...("serverTaskId" in o ? { serverTaskId: `${o.serverTaskId}-${correlationId}` } : {}),
      }) as Observation,
  );
}

const { admin, fixtures, running } = kafkaSuite({ beforeAll, afterAll });

/** A private topic set created with `create` (the specs' partition counts), and a reconciler environment without A2A_LEDGER_PARTITIONS. */
async function fixtureAt(label: string, create: (f: Fixture) => Promise<void>): Promise<Fixture> {
  const suffix = `${label}-${randomUUID().slice(0, 8)}`;
  const topics = suffixedTopicNames(suffix);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    A2A_LEDGER_TOPIC_SUFFIX: suffix,
    A2A_LEDGER_RECONCILER_GROUP: `reconciler-${suffix}`,
    A2A_LEDGER_RECONCILER_SESSION_TIMEOUT_MS: "6000",
  };
  delete env.A2A_LEDGER_PARTITIONS;
  const f: Fixture = { suffix, topics, groupId: `reconciler-${suffix}`, env, config: loadReconcilerConfig(env) };
  fixtures.push(f);
  await create(f);
  return f;
}

describe("the reconciler learns the partition count from the topics", () => {
  it("on topics created with 24 partitions, writes each correlation's decisions, commands and changelog on its observations' partition", async () => {
    const f = await fixtureAt("p24", (fx) => ensureTopics(admin, topicSpecs(fx.topics, 24)).then(() => undefined));
    const reconciler = await startInProcess(f);
    running.push(reconciler);
    const correlations = Array.from({ length: 40 }, (_, i) => `task-p24-${i}`);
    // The keys reach partitions a count of 6 would never use.
    expect(correlations.filter((c) => partitionOf(c, 24) >= 6).length).toBeGreaterThan(10);
    await produce(f.topics.observations, capabilityPhase);
    await waitForGroupAtEnd(admin, f);
    await produce(f.topics.observations, correlations.flatMap(taskStory));
    await waitForGroupAtEnd(admin, f);

    const observed = new Map<string, Set<number>>();
    for (const r of await readAll(f.topics.observations))
      if (r.key !== null) (observed.get(r.key) ?? observed.set(r.key, new Set()).get(r.key))?.add(r.partition);
    for (const c of correlations) expect([...(observed.get(c) ?? [])], c).toEqual([partitionOf(c, 24)]);
    for (const topic of [f.topics.decisions, f.topics.commands, f.topics.changelog]) {
      const records = await readAll(topic);
      for (const c of correlations) {
        const partitions = new Set(records.filter((r) => r.key === c).map((r) => r.partition));
        expect([...partitions], `${topic} ${c}`).toEqual([...(observed.get(c) ?? [])]);
      }
    }
  }, 180_000);

  it("refuses to start on correlation-keyed topics that disagree, naming each topic and its count", async () => {
    const f = await fixtureAt("disagree", async (fx) => {
      await ensureTopics(
        admin,
        topicSpecs(fx.topics, 24).filter((s) => s.name !== fx.topics.decisions),
      );
      await ensureTopics(
        admin,
        topicSpecs(fx.topics, 6).filter((s) => s.name === fx.topics.decisions),
      );
    });
    const reconciler = new Reconciler(f.config, quietLog);
    const error = await reconciler.start().then(
      () => undefined,
      (e: unknown) => e,
    );
    if (error === undefined) running.push(reconciler);
    expect(error).toBeInstanceOf(PartitionDisagreementError);
    const message = (error as Error).message;
    for (const [topic, count] of [
      [f.topics.observations, 24],
      [f.topics.decisions, 6],
      [f.topics.commands, 24],
      [f.topics.changelog, 24],
    ] as const)
      expect(message).toContain(`${topic}: ${count} partitions`);
    await reconciler.stop().catch(() => undefined);
  }, 120_000);
});
