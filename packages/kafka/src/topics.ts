/**
 * Topics as code (DESIGN §3): names, partition counts, cleanup policies and retention, applied
 * idempotently at start. An existing topic whose settings conflict is a startup error.
 */
import type { Admin } from "kafkajs";
import { createTopicsAndWait } from "./create-topics.ts";
import { agreedPartitions, defaultPartitions, type TopicPartitionCount } from "./partition-count.ts";

export interface TopicSpec {
  name: string;
  partitions: number;
  /**
   * Keyed by correlation id and co-partitioned with the other such topics: an existing one's count is
   * the installed count (whatever `partitions` says), and they must all agree (ensureTopics).
   */
  correlationKeyed?: boolean;
  /** Topic-level configs that must hold; compared against an existing topic. */
  configs: Record<string, string>;
  /** Configs a new topic is created with, which an operator may tune later (never compared). */
  tuning?: Record<string, string>;
  purpose: string;
}

const forever = "-1";
const days = (n: number) => String(n * 24 * 60 * 60 * 1000);

export const topicNames = {
  observations: "a2a.observations.v1",
  decisions: "a2a.decisions.v1",
  commands: "a2a.commands.v1",
  capabilities: "a2a.capabilities.v1",
  changelog: "a2a.reconciler.changelog.v1",
  dlq: "a2a.observations.dlq.v1",
  policy: "a2a.policy.v1",
  batches: "a2a.reconciler.batches.v1",
} as const;

export type TopicNames = { readonly [K in keyof typeof topicNames]: string };

/** The same topic set under other names (tests and side-by-side deployments use a suffix). */
export function suffixedTopicNames(suffix: string): TopicNames {
  return Object.fromEntries(Object.entries(topicNames).map(([k, v]) => [k, `${v}.${suffix}`])) as unknown as TopicNames;
}

/** Largest changelog record the topic accepts (Kafka's default for max.message.bytes). */
export const changelogMaxMessageBytes = "1048588";

/**
 * Observations, decisions, commands and the changelog are co-partitioned by correlationId. This is the
 * count they are created with by default (`A2A_LEDGER_PARTITIONS` chooses another at install); readers
 * and writers learn the installed count from the topics' metadata (`installedPartitions`).
 */
export const correlationPartitions = defaultPartitions;

/** The correlation-keyed topics of a topic set, which share one partition count. */
export function correlationKeyedTopics(names: TopicNames = topicNames): string[] {
  return [names.observations, names.decisions, names.commands, names.changelog];
}

/**
 * Every topic of the ledger with its settings, for a given set of names; `partitions` is the count the
 * correlation-keyed topics are created with (`partitionsFromEnv()` where topics are created).
 */
export function topicSpecs(names: TopicNames = topicNames, partitions: number = correlationPartitions): TopicSpec[] {
  return [
    {
      name: names.observations,
      partitions,
      correlationKeyed: true,
      configs: { "cleanup.policy": "delete", "retention.ms": forever },
      purpose: "what every observer saw; the source of truth, kept for replay",
    },
    {
      name: names.decisions,
      partitions,
      correlationKeyed: true,
      configs: { "cleanup.policy": "delete", "retention.ms": forever },
      purpose: "what the reconciler decided",
    },
    {
      name: names.commands,
      partitions,
      correlationKeyed: true,
      configs: { "cleanup.policy": "delete", "retention.ms": days(7) },
      purpose: "re-dispatch and probe commands for the dispatcher",
    },
    {
      name: names.capabilities,
      partitions: 1,
      configs: { "cleanup.policy": "compact", "min.compaction.lag.ms": days(1) },
      purpose: "advertised and verified capability snapshots, read whole as a global table",
    },
    // The broker's default record limit, made explicit: a correlation state is kept far below it (core: maxStateBytes).
    {
      name: names.changelog,
      partitions,
      correlationKeyed: true,
      configs: { "cleanup.policy": "compact", "max.message.bytes": changelogMaxMessageBytes },
      // Compaction never touches the active segment: an hourly roll lets tombstones and overwritten states
      // leave within hours, so a restore reads about the live correlations, not a week of writes.
      tuning: { "segment.ms": String(60 * 60 * 1000) },
      purpose: "reconciler state per correlation, restored on assignment",
    },
    // Keyed by the version (decimal): compaction keeps every version, so history replays across each change.
    {
      name: names.policy,
      partitions: 1,
      configs: { "cleanup.policy": "compact" },
      purpose: "the trust policy, one record per version with the time it is in force from; read whole by every reader",
    },
    // One partition: the records of every reconciler transaction in one order, consistent with what each read.
    {
      name: names.batches,
      partitions: 1,
      configs: { "cleanup.policy": "delete", "retention.ms": forever },
      purpose:
        "what each reconciler transaction read (observation offsets, capability table reach), kept as long as the observations: replay follows it to reproduce live decisions",
    },
    {
      name: names.dlq,
      partitions: 1,
      configs: { "cleanup.policy": "delete", "retention.ms": days(30) },
      purpose: "records the reconciler could not process, with reason and source coordinates",
    },
  ];
}

export const topics: readonly TopicSpec[] = topicSpecs();

export interface TopicConflict {
  topic: string;
  setting: string;
  expected: string;
  actual: string;
}

export class TopicConflictError extends Error {
  override name = "TopicConflictError";
  constructor(readonly conflicts: TopicConflict[]) {
    super(
      `Existing topics conflict with the settings in code:\n${conflicts
        .map((c) => `  ${c.topic}: ${c.setting} is ${c.actual}, expected ${c.expected}`)
        .join("\n")}\nFix or delete these topics (data loss!) and start again; nothing was changed.`,
    );
  }
}

export interface EnsureResult {
  created: string[];
  existing: string[];
  /**
   * The partition count of the correlation-keyed topics after the call: the existing ones' count when
   * some existed (whatever the specs asked for), else the specs' count; undefined when the specs have none.
   */
  correlationPartitions: number | undefined;
}

const CONFIG_RESOURCE_TOPIC = 2;

/** How a topic is replicated on a cluster of `brokers`: DESIGN §9. */
export interface Replication {
  factor: number;
  /** Topic configs that go with the factor. */
  configs: Record<string, string>;
}

/**
 * Replication factor min(3, brokers); at factor 3 a write needs two replicas in sync (one broker may
 * die without losing an acknowledged record or stopping writes); never an unclean leader.
 */
export function replicationFor(brokers: number): Replication {
  const factor = Math.max(1, Math.min(3, brokers));
  return {
    factor,
    configs: { "min.insync.replicas": factor === 3 ? "2" : "1", "unclean.leader.election.enable": "false" },
  };
}

/** The settings a spec must hold on a cluster of `brokers`: its own configs and the replication's. */
export function effectiveConfigs(spec: TopicSpec, brokers: number): Record<string, string> {
  return { ...replicationFor(brokers).configs, ...spec.configs };
}

/** A topic's value of one config as the brokers hold it now (their default included), undefined if none. */
export async function topicConfig(admin: Admin, topic: string, name: string): Promise<string | undefined> {
  const described = await admin.describeConfigs({
    includeSynonyms: false,
    resources: [{ type: CONFIG_RESOURCE_TOPIC, name: topic, configNames: [name] }],
  });
  return described.resources[0]?.configEntries.find((e) => e.configName === name)?.configValue ?? undefined;
}

/**
 * Sets tuning configs of an existing topic (segment roll, cleaner delays): kafkajs's alterConfigs replaces
 * a topic's whole config, so the configs the code requires are given again with them.
 */
export async function tuneTopic(admin: Admin, spec: TopicSpec, tuning: Record<string, string>): Promise<void> {
  const brokers = (await admin.describeCluster()).brokers.length;
  const configs = { ...effectiveConfigs(spec, brokers), ...tuning };
  await admin.alterConfigs({
    validateOnly: false,
    resources: [
      {
        type: CONFIG_RESOURCE_TOPIC,
        name: spec.name,
        configEntries: Object.entries(configs).map(([name, value]) => ({ name, value })),
      },
    ],
  });
}

/**
 * The topics the cluster lists, of `wanted`. A broker answers from its own view of the cluster, which
 * learns of a topic created a moment ago (by another service's start) a little after the controller:
 * while some of `wanted` are not listed, the listing is asked again for up to `settleMs`, and a topic
 * any answer listed counts as present (so it is verified, never taken for missing and created anew).
 */
async function listedTopics(admin: Admin, wanted: readonly string[], settleMs = 3_000): Promise<Set<string>> {
  const seen = new Set<string>();
  const deadline = Date.now() + settleMs;
  for (let delay = 200; ; delay = Math.min(delay * 2, 1_000)) {
    for (const topic of await admin.listTopics()) seen.add(topic);
    if (wanted.every((t) => seen.has(t)) || Date.now() + delay > deadline) return seen;
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

/**
 * Creates missing topics and verifies existing ones: partitions, configs, and a replication at least
 * as strong as the cluster's size calls for. Throws TopicConflictError before creating anything when
 * one conflicts. The correlation-keyed topics are the exception for partitions: an existing one's
 * count is the installed count, so a missing one is created with it too; when existing ones disagree
 * with each other it throws PartitionDisagreementError naming each, before creating anything.
 */
export async function ensureTopics(admin: Admin, specs: readonly TopicSpec[] = topics): Promise<EnsureResult> {
  const present = await listedTopics(
    admin,
    specs.map((s) => s.name),
  );
  const existing = specs.filter((s) => present.has(s.name));
  const brokers = (await admin.describeCluster()).brokers.length;
  const replication = replicationFor(brokers);
  const conflicts: TopicConflict[] = [];
  const installed: TopicPartitionCount[] = [];
  if (existing.length > 0) {
    const metadata = await admin.fetchTopicMetadata({ topics: existing.map((s) => s.name) });
    const described = await admin.describeConfigs({
      includeSynonyms: false,
      resources: existing.map((s) => ({
        type: CONFIG_RESOURCE_TOPIC,
        name: s.name,
        configNames: Object.keys(effectiveConfigs(s, brokers)),
      })),
    });
    for (const spec of existing) {
      const partitions = metadata.topics.find((t) => t.name === spec.name)?.partitions ?? [];
      if (spec.correlationKeyed === true) installed.push({ topic: spec.name, partitions: partitions.length });
      else if (partitions.length !== spec.partitions)
        conflicts.push({
          topic: spec.name,
          setting: "partitions",
          expected: String(spec.partitions),
          actual: String(partitions.length),
        });
      const factor = Math.min(...partitions.map((p) => p.replicas.length));
      if (partitions.length > 0 && factor < replication.factor)
        conflicts.push({
          topic: spec.name,
          setting: "replication factor",
          expected: `${replication.factor} (min(3, ${brokers} brokers))`,
          actual: String(factor),
        });
      const entries = described.resources.find((r) => r.resourceName === spec.name)?.configEntries ?? [];
      for (const [key, expected] of Object.entries(effectiveConfigs(spec, brokers))) {
        const actual = entries.find((e) => e.configName === key)?.configValue ?? "(unset)";
        if (actual !== expected) conflicts.push({ topic: spec.name, setting: key, expected, actual });
      }
    }
  }
  const installedCount = agreedPartitions(installed);
  if (conflicts.length > 0) throw new TopicConflictError(conflicts);
  const missing = specs.filter((s) => !present.has(s.name));
  const partitionsOf = (s: TopicSpec) =>
    s.correlationKeyed === true ? (installedCount ?? s.partitions) : s.partitions;
  const keyed = specs.filter((s) => s.correlationKeyed === true);
  if (installedCount === undefined) agreedPartitions(keyed.map((s) => ({ topic: s.name, partitions: s.partitions })));
  if (missing.length > 0) {
    await createTopicsAndWait(
      admin,
      missing.map((s) => ({
        topic: s.name,
        numPartitions: partitionsOf(s),
        replicationFactor: replication.factor,
        configEntries: Object.entries({ ...s.tuning, ...effectiveConfigs(s, brokers) }).map(([name, value]) => ({
          name,
          value,
        })),
      })),
    );
  }
  const first = keyed[0];
  return {
    created: missing.map((s) => s.name),
    existing: existing.map((s) => s.name),
    correlationPartitions: first === undefined ? undefined : partitionsOf(first),
  };
}
