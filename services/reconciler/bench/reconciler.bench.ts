/**
 * `npm run bench -w @a2a-ledger/reconciler`: the reconciler with exactly-once against plain kafkajs
 * consume→produce passthroughs on the same broker in the same run, then the latency from a
 * TaskNotFoundObserved being acknowledged to its first decision, and to its RedispatchCommanded, being
 * readable (read_committed) under a paced stream.
 *
 * OBSERVATIONS (default 20000), ROUNDS (default 2; the order of the runs rotates), LATENCY_RATE (observations/s, default 1000),
 * LATENCY_SECONDS (default 20) and LATENCY_RULES (the rule set of the latency run, default `default`) vary the runs. Every topic is a private copy, deleted at the end.
 */
import { randomUUID } from "node:crypto";
import {
  createDecider,
  defaultRuleSet,
  defaultRuleSetV1,
  replay,
  replayLog,
  type RuleSet,
  ruleSetByName,
} from "@a2a-ledger/core";
import { generateLog } from "@a2a-ledger/core/testing";
import { percentile } from "@a2a-ledger/env/testing";
import {
  type Admin,
  type Consumer,
  type KafkaMessage,
  type Producer,
  createTopicsAndWait,
  installedPartitions,
  replicationFor,
} from "@a2a-ledger/kafka";
import type { Decision, Observation } from "@a2a-ledger/schemas";
import type { RetryOptions } from "kafkajs";
import type { Fixture } from "../test/harness.ts";
import { deleteTopics, fixture, kafka, parseLines, quietLog, serde } from "../test/harness.ts";
import type { ReconcilerConfig } from "../src/config.ts";
import { Reconciler, transactionalProducerRetry } from "../src/reconciler.ts";
import { endOffsets } from "@a2a-ledger/kafka";
import { envInt } from "./changelog-bench.ts";

const observationCount = envInt("OBSERVATIONS", 20_000, 1_000, 1_000_000);
const rounds = envInt("ROUNDS", 2, 1, 10);
const latencyRate = envInt("LATENCY_RATE", 1_000, 10, 20_000);
const latencySeconds = envInt("LATENCY_SECONDS", 20, 2, 120);
const latencyRules = process.env["LATENCY_RULES"]?.trim() || "default";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const fmt = (n: number, digits = 0) =>
  n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

interface Encoded {
  key: string;
  value: Buffer;
}

async function encodeAll(observations: readonly Observation[]): Promise<Encoded[]> {
  return Promise.all(observations.map(async (o) => ({ key: o.correlationId, value: await serde.encode(o) })));
}

async function produceAll(topic: string, records: readonly Encoded[]): Promise<void> {
  const producer = kafka.producer({ idempotent: true });
  await producer.connect();
  try {
    for (let i = 0; i < records.length; i += 1_000)
      await producer.send({ topic, acks: -1, messages: records.slice(i, i + 1_000) });
  } finally {
    await producer.disconnect();
  }
}

/** A passthrough's topic, replicated as the ledger's topics are on this cluster. */
async function createTopic(admin: Admin, name: string, partitions: number): Promise<void> {
  const replication = replicationFor((await admin.describeCluster()).brokers.length);
  await createTopicsAndWait(admin, [
    {
      topic: name,
      numPartitions: partitions,
      replicationFactor: replication.factor,
      configEntries: Object.entries(replication.configs).map(([n, value]) => ({ name: n, value })),
    },
  ]);
}

interface RunTiming {
  /** From the start call until the group's committed offsets reached the end of the input. */
  totalMs: number;
  /** From the first committed offset until the end: the steady part without joining the group. */
  steadyMs: number;
}

/** Polls the group's committed offsets until they reach the end of the topic (bounded). */
async function untilCommittedAtEnd(
  admin: Admin,
  groupId: string,
  topic: string,
  startedAt: number,
  timeoutMs = 300_000,
): Promise<RunTiming> {
  const ends = await endOffsets(admin, topic);
  const deadline = Date.now() + timeoutMs;
  let firstCommitAt: number | undefined;
  for (;;) {
    const committed = await admin.fetchOffsets({ groupId, topics: [topic] });
    const offsets = new Map((committed[0]?.partitions ?? []).map((p) => [p.partition, Number(p.offset)]));
    const now = performance.now();
    if (firstCommitAt === undefined && [...offsets.values()].some((o) => o > 0)) firstCommitAt = now;
    if (ends.every((e) => Number(e.high) === 0 || (offsets.get(e.partition) ?? -1) >= Number(e.high))) {
      return { totalMs: now - startedAt, steadyMs: now - (firstCommitAt ?? startedAt) };
    }
    if (Date.now() > deadline)
      throw new Error(`group ${groupId} did not reach the end of ${topic} within ${timeoutMs} ms`);
    await sleep(20);
  }
}

/** The reconciler's consumer settings, so the passthroughs consume exactly as it does. */
function consumerLike(config: ReconcilerConfig, groupId: string): Consumer {
  return kafka.consumer({
    groupId,
    readUncommitted: false,
    allowAutoTopicCreation: false,
    maxWaitTimeInMs: 100,
    sessionTimeout: config.sessionTimeoutMs,
    heartbeatInterval: 1_000,
    rebalanceTimeout: 30_000,
  });
}

interface PassthroughResult extends RunTiming {
  transactions: number;
  addPartitionsRequests: number;
}

/**
 * Exactly-once passthrough: the reconciler's loop without decoding, rules or encoding. Each chunk of
 * at most maxBatch records is copied to `output` (same partition) and its offsets sent in the same
 * transaction, one transactional producer per input partition.
 */
async function eosPassthrough(
  admin: Admin,
  config: ReconcilerConfig,
  input: string,
  output: string,
  groupId: string,
  retry: RetryOptions = transactionalProducerRetry,
): Promise<PassthroughResult> {
  const producers = new Map<number, Producer>();
  let transactions = 0;
  let addPartitionsRequests = 0;
  const producerFor = async (partition: number): Promise<Producer> => {
    let producer = producers.get(partition);
    if (producer === undefined) {
      producer = kafka.producer({
        transactionalId: `${groupId}.${input}.${partition}`,
        idempotent: true,
        maxInFlightRequests: 1,
        retry,
      });
      producer.on(producer.events.REQUEST, ({ payload }) => {
        if (payload.apiName === "AddPartitionsToTxn") addPartitionsRequests++;
      });
      await producer.connect();
      producers.set(partition, producer);
    }
    return producer;
  };
  const concurrency = config.concurrency ?? (await installedPartitions(admin, [input]));
  const consumer = consumerLike(config, groupId);
  const startedAt = performance.now();
  await consumer.connect();
  await consumer.subscribe({ topic: input, fromBeginning: true });
  await consumer.run({
    autoCommit: false,
    eachBatchAutoResolve: false,
    partitionsConsumedConcurrently: concurrency,
    eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
      for (let i = 0; i < batch.messages.length && isRunning() && !isStale(); i += config.maxBatch) {
        const chunk = batch.messages.slice(i, i + config.maxBatch);
        const last = chunk[chunk.length - 1] as KafkaMessage;
        const producer = await producerFor(batch.partition);
        const tx = await producer.transaction();
        try {
          await tx.sendBatch({
            topicMessages: [
              {
                topic: output,
                messages: chunk.map((m) => ({ key: m.key, value: m.value, partition: batch.partition })),
              },
            ],
            acks: -1,
          });
          await tx.sendOffsets({
            consumerGroupId: groupId,
            topics: [
              {
                topic: batch.topic,
                partitions: [{ partition: batch.partition, offset: (BigInt(last.offset) + 1n).toString() }],
              },
            ],
          });
          await tx.commit();
          transactions++;
        } catch (error) {
          await tx.abort().catch(() => undefined);
          throw error;
        }
        resolveOffset(last.offset);
        await heartbeat();
      }
    },
  });
  try {
    return { ...(await untilCommittedAtEnd(admin, groupId, input, startedAt)), transactions, addPartitionsRequests };
  } finally {
    await consumer.disconnect();
    await Promise.all([...producers.values()].map((p) => p.disconnect()));
  }
}

/** At-least-once passthrough for context: idempotent producer, offsets auto-committed after every batch. */
async function plainPassthrough(
  admin: Admin,
  config: ReconcilerConfig,
  input: string,
  output: string,
  groupId: string,
): Promise<RunTiming> {
  const producer = kafka.producer({ idempotent: true });
  await producer.connect();
  const concurrency = config.concurrency ?? (await installedPartitions(admin, [input]));
  const consumer = consumerLike(config, groupId);
  const startedAt = performance.now();
  await consumer.connect();
  await consumer.subscribe({ topic: input, fromBeginning: true });
  await consumer.run({
    autoCommit: true,
    autoCommitThreshold: 1,
    partitionsConsumedConcurrently: concurrency,
    eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
      for (let i = 0; i < batch.messages.length && isRunning() && !isStale(); i += config.maxBatch) {
        const chunk = batch.messages.slice(i, i + config.maxBatch);
        await producer.sendBatch({
          topicMessages: [
            { topic: output, messages: chunk.map((m) => ({ key: m.key, value: m.value, partition: batch.partition })) },
          ],
          acks: -1,
        });
        resolveOffset((chunk[chunk.length - 1] as KafkaMessage).offset);
        await heartbeat();
      }
    },
  });
  try {
    return await untilCommittedAtEnd(admin, groupId, input, startedAt);
  } finally {
    await consumer.disconnect();
    await producer.disconnect();
  }
}

interface ReconcilerResult extends RunTiming {
  commits: number;
  stages: Map<string, number>;
  processed: number;
}

async function reconcilerRun(admin: Admin, f: Fixture): Promise<ReconcilerResult> {
  const reconciler = new Reconciler(f.config, quietLog);
  const startedAt = performance.now();
  await reconciler.start();
  try {
    const timing = await untilCommittedAtEnd(admin, f.groupId, f.topics.observations, startedAt);
    const stages = new Map(
      (await reconciler.metrics.stageSeconds.get()).values.map((v) => [String(v.labels.stage), v.value]),
    );
    const commits = (await reconciler.metrics.commits.get()).values[0]?.value ?? 0;
    const processed = (await reconciler.metrics.observations.get()).values[0]?.value ?? 0;
    return { ...timing, commits, stages, processed };
  } finally {
    await reconciler.stop();
  }
}

async function throughput(admin: Admin, fixtures: Fixture[], extraTopics: string[]): Promise<void> {
  console.log(`\n== Throughput: ${fmt(observationCount)} observations, pre-produced ==`);
  const observations = parseLines(generateLog(observationCount));
  const encoded = await encodeAll(observations);
  const f = await fixture(admin, "bench-tp");
  fixtures.push(f);
  const eosOut = `bench.passthrough-eos.${f.suffix}`;
  const plainOut = `bench.passthrough-plain.${f.suffix}`;
  extraTopics.push(eosOut, plainOut);
  const partitions = (await endOffsets(admin, f.topics.observations)).length;
  await createTopic(admin, eosOut, partitions);
  await createTopic(admin, plainOut, partitions);
  await produceAll(f.topics.observations, encoded);
  const bytes = encoded.reduce((n, r) => n + r.value.length, 0);
  console.log(
    `input: ${f.topics.observations}, ${partitions} partitions, ${fmt(bytes / encoded.length)} bytes Avro per observation, max ${f.config.maxBatch} per transaction`,
  );

  const rate = (t: RunTiming) => observationCount / (t.totalMs / 1_000);
  const steadyRate = (t: RunTiming) => observationCount / (t.steadyMs / 1_000);
  const line = (name: string, t: RunTiming, extra = "") =>
    console.log(
      `  ${name.padEnd(36)} ${fmt(t.totalMs / 1_000, 2).padStart(6)} s ${fmt(rate(t)).padStart(7)} obs/s  (after the first commit: ${fmt(steadyRate(t)).padStart(6)} obs/s)${extra}`,
    );

  type Variant = "eos" | "reconciler" | "plain" | "eos-default-retry";
  const results = new Map<Variant, RunTiming[]>();
  const stages = new Map<string, number>();
  let commits = 0;
  let n = 0;
  const run = async (variant: Variant): Promise<void> => {
    const group = `bench-${variant}-${++n}-${f.suffix}`; // passthroughs
    let timing: RunTiming;
    if (variant === "reconciler") {
      // Fresh output topics (changelog, capabilities, ...) per run, the shared input.
      const outputs = await fixture(admin, "bench-tp-out");
      fixtures.push(outputs);
      const topics = { ...outputs.topics, observations: f.topics.observations };
      const rec = await reconcilerRun(admin, {
        ...outputs,
        topics,
        groupId: outputs.groupId,
        config: { ...outputs.config, topics },
      });
      if (rec.processed !== observationCount)
        console.log(`  !! the reconciler counted ${rec.processed} observations, expected ${observationCount}`);
      for (const [stage, seconds] of rec.stages) stages.set(stage, (stages.get(stage) ?? 0) + seconds);
      commits += rec.commits;
      timing = rec;
      line("reconciler (exactly-once)", rec, `, ${rec.commits} transactions`);
    } else if (variant === "plain") {
      timing = await plainPassthrough(admin, f.config, f.topics.observations, plainOut, group);
      line("plain passthrough (at-least-once)", timing);
    } else {
      const eos = await eosPassthrough(
        admin,
        f.config,
        f.topics.observations,
        eosOut,
        group,
        variant === "eos" ? transactionalProducerRetry : {},
      );
      timing = eos;
      line(
        variant === "eos" ? "EOS passthrough" : "EOS passthrough, kafkajs default retry",
        eos,
        `, ${eos.transactions} transactions, ${eos.addPartitionsRequests} AddPartitionsToTxn`,
      );
    }
    results.set(variant, [...(results.get(variant) ?? []), timing]);
  };
  const order: Variant[] = ["eos", "reconciler", "plain"];
  for (let round = 0; round < rounds; round++) {
    console.log(`round ${round + 1}:`);
    for (let i = 0; i < order.length; i++) await run(order[(i + round) % order.length] as Variant);
  }
  await run("eos-default-retry");

  const mean = (variant: Variant, of: (t: RunTiming) => number) => {
    const list = results.get(variant) ?? [];
    return list.reduce((sum, t) => sum + of(t), 0) / Math.max(1, list.length);
  };
  console.log(`mean of ${rounds} round(s), observations/s from the start call (after the first commit):`);
  for (const v of ["reconciler", "eos", "plain", "eos-default-retry"] as const)
    console.log(`  ${v.padEnd(18)} ${fmt(mean(v, rate)).padStart(7)} (${fmt(mean(v, steadyRate))})`);
  console.log(
    `ratio reconciler / EOS passthrough:   ${fmt(mean("reconciler", rate) / mean("eos", rate), 2)} (after the first commit: ${fmt(mean("reconciler", steadyRate) / mean("eos", steadyRate), 2)})`,
  );
  console.log(
    `ratio reconciler / plain passthrough: ${fmt(mean("reconciler", rate) / mean("plain", rate), 2)} (after the first commit: ${fmt(mean("reconciler", steadyRate) / mean("plain", steadyRate), 2)})`,
  );
  const total = [...stages.values()].reduce((a, b) => a + b, 0);
  const processed = observationCount * rounds;
  console.log(
    `reconciler time per stage, all rounds (wall clock inside a transaction's processing, ${commits} transactions):`,
  );
  for (const [stage, seconds] of stages) {
    console.log(
      `  ${stage.padEnd(13)} ${fmt(seconds * 1_000).padStart(7)} ms  ${fmt((seconds / total) * 100, 1).padStart(5)} %  ${fmt((seconds * 1e6) / processed, 1).padStart(6)} µs/obs  ${fmt((seconds * 1_000) / Math.max(1, commits), 2).padStart(6)} ms/tx`,
    );
  }
}

/** What the file replay says a lost task gets: the TaskNotFoundObserved that cause a decision, and those that cause a re-dispatch. */
function expectedOnLoss(
  observations: readonly Observation[],
  ruleSet: RuleSet,
): { decided: Set<string>; redispatched: Set<string> } {
  const notFound = new Set(observations.filter((o) => o.type === "TaskNotFoundObserved").map((o) => o.eventId));
  const decided = new Set<string>();
  const redispatched = new Set<string>();
  for (const d of replay(observations, ruleSet))
    for (const id of d.causeEventIds) {
      if (!notFound.has(id)) continue;
      decided.add(id);
      if (d.type === "RedispatchCommanded") redispatched.add(id);
    }
  return { decided, redispatched };
}

/** One latency line: p50, p99, max over what arrived, and how many of those expected did. */
function latencyLine(
  label: string,
  acks: ReadonlyMap<string, number>,
  arrivals: ReadonlyMap<string, number>,
  expected: ReadonlySet<string>,
): string {
  const sent = [...acks].filter(([id]) => expected.has(id));
  const latencies = sent
    .flatMap(([id, ackedAt]) => {
      const arrived = arrivals.get(id);
      return arrived === undefined ? [] : [arrived - ackedAt];
    })
    .sort((a, b) => a - b);
  const figures =
    latencies.length === 0
      ? "none arrived"
      : `p50 ${fmt(percentile(latencies, 0.5), 1)}, p99 ${fmt(percentile(latencies, 0.99), 1)}, max ${fmt(latencies[latencies.length - 1] as number, 1)}`;
  return `  ${label.padEnd(44)} ${String(latencies.length).padStart(5)} of ${String(sent.length).padEnd(5)} ms: ${figures}`;
}

async function latency(admin: Admin, fixtures: Fixture[]): Promise<void> {
  const total = latencyRate * latencySeconds;
  const ruleSet = ruleSetByName(latencyRules);
  if (ruleSet === undefined) throw new Error(`LATENCY_RULES=${latencyRules}: expected one of the shipped rule sets`);
  console.log(
    `\n== Latency: TaskNotFoundObserved acknowledged → its decision readable, ${fmt(total)} observations at ${fmt(latencyRate)}/s, rules ${ruleSet.rulesVersion} ==`,
  );
  const observations = parseLines(generateLog(total));
  const encoded = await encodeAll(observations);
  const capabilityPhase = observations.findIndex((o) => !o.correlationId.startsWith("probe-"));
  const expected = expectedOnLoss(observations, ruleSet);

  const f = await fixture(admin, "bench-lat");
  fixtures.push(f);
  const reconciler = new Reconciler({ ...f.config, ruleSet }, quietLog);
  await reconciler.start();
  const reader = kafka.consumer({
    groupId: `bench-lat-reader-${randomUUID()}`,
    readUncommitted: false,
    maxWaitTimeInMs: 100,
  });
  const producer = kafka.producer({ idempotent: true });
  try {
    // Cards and probes first, processed before the paced stream starts.
    await produceAll(f.topics.observations, encoded.slice(0, capabilityPhase));
    await untilCommittedAtEnd(admin, f.groupId, f.topics.observations, performance.now(), 60_000);

    // When a loss's first decision (either topic) and its re-dispatch (commands) became readable.
    const decidedAt = new Map<string, number>();
    const redispatchedAt = new Map<string, number>();
    await reader.connect();
    await reader.subscribe({ topics: [f.topics.decisions, f.topics.commands], fromBeginning: true });
    const joined = new Promise<void>((resolve) => reader.on(reader.events.GROUP_JOIN, () => resolve()));
    await reader.run({
      partitionsConsumedConcurrently: 12,
      eachMessage: async ({ message }) => {
        const at = performance.now();
        if (message.value === null) return;
        const { record } = await serde.decode(message.value);
        for (const id of (record as Decision).causeEventIds ?? []) {
          if (!expected.decided.has(id)) continue;
          if (!decidedAt.has(id)) decidedAt.set(id, at);
          if (record.type === "RedispatchCommanded" && !redispatchedAt.has(id)) redispatchedAt.set(id, at);
        }
      },
    });
    await Promise.race([joined, sleep(30_000)]);
    await producer.connect();

    const acks = new Map<string, number>();
    const stream = encoded.slice(capabilityPhase);
    const start = performance.now();
    const hardStop = start + latencySeconds * 1_000 * 3;
    let sent = 0;
    let sends = 0;
    while (sent < stream.length && performance.now() < hardStop) {
      const due = Math.min(stream.length, Math.floor(((performance.now() - start) * latencyRate) / 1_000));
      if (due <= sent) {
        await sleep(1);
        continue;
      }
      await producer.send({ topic: f.topics.observations, acks: -1, messages: stream.slice(sent, due) });
      const ackedAt = performance.now();
      for (let i = sent; i < due; i++) {
        const id = (observations[capabilityPhase + i] as Observation).eventId;
        if (expected.decided.has(id)) acks.set(id, ackedAt);
      }
      sent = due;
      sends++;
    }
    const elapsed = (performance.now() - start) / 1_000;
    const awaited = [...acks.keys()].filter((id) => expected.decided.has(id));
    console.log(
      `produced ${fmt(sent)} observations in ${fmt(elapsed, 1)} s (${fmt(sent / elapsed)} obs/s, ${fmt(sends)} sends); ${awaited.length} TaskNotFoundObserved that the file replay decides on, ${[...acks.keys()].filter((id) => expected.redispatched.has(id)).length} of them with a re-dispatch`,
    );
    const waitUntil = Date.now() + 60_000;
    const complete = () =>
      awaited.every((id) => decidedAt.has(id) && (!expected.redispatched.has(id) || redispatchedAt.has(id)));
    while (!complete() && Date.now() < waitUntil) await sleep(50);

    console.log(latencyLine("loss → its first decision readable", acks, decidedAt, expected.decided));
    console.log(latencyLine("loss → RedispatchCommanded readable", acks, redispatchedAt, expected.redispatched));
    const missing = awaited.filter((id) => !decidedAt.has(id));
    if (missing.length > 0)
      console.log(
        `  not decided within 60 s: ${missing.length} (first: line ${observations.findIndex((o) => o.eventId === missing[0])})`,
      );
    const commits = (await reconciler.metrics.commits.get()).values[0]?.value ?? 0;
    console.log(`reconciler transactions during the latency run: ${commits} (${fmt(commits / elapsed, 1)}/s)`);
  } finally {
    await producer.disconnect().catch(() => undefined);
    await reader.disconnect().catch(() => undefined);
    await reconciler.stop();
  }
}

/** Changelog bytes per correlation after the whole log, for a rule set's state model: what the changelog holds. */
function changelogBytes(
  ruleSet: RuleSet,
  observations: readonly Observation[],
): { mean: number; max: number; correlations: number } {
  const decider = createDecider(ruleSet);
  const sizes = [...replayLog(observations, ruleSet).correlations.values()].map((s) => decider.serialize(s).length);
  return { mean: sizes.reduce((a, b) => a + b, 0) / sizes.length, max: Math.max(...sizes), correlations: sizes.length };
}

function stateSizes(): void {
  const observations = parseLines(generateLog(observationCount));
  console.log(`\n== Changelog value per correlation after ${fmt(observationCount)} observations ==`);
  for (const rs of [defaultRuleSetV1, defaultRuleSet]) {
    const b = changelogBytes(rs, observations);
    console.log(
      `  ${rs.rulesVersion.padEnd(10)} ${fmt(b.mean).padStart(6)} bytes mean, ${fmt(b.max).padStart(6)} max, ${fmt(b.correlations)} correlations`,
    );
  }
}

const admin = kafka.admin();
await admin.connect();
const fixtures: Fixture[] = [];
const extraTopics: string[] = [];
try {
  await serde.registerAll();
  console.log(`Node ${process.version}, broker ${process.env.KAFKA_BROKERS ?? "(default endpoints)"}`);
  stateSizes();
  await throughput(admin, fixtures, extraTopics);
  await latency(admin, fixtures);
} finally {
  for (const f of fixtures) await deleteTopics(admin, f);
  if (extraTopics.length > 0) await admin.deleteTopics({ topics: extraTopics }).catch(() => undefined);
  await admin.disconnect();
}
