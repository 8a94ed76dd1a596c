/**
 * What must hold after a fault, read with the Java client and decoded without the ledger's serde:
 *
 * - every observation acknowledged with 202 is on the observations topic; the copies of one eventId
 *   are no more than the requests that carried it, and never carry two payloads;
 * - the committed decisions equal the replay of the observations topic through the rules, in the order
 *   the reconciler's batch records say it read them; no
 *   decisionId twice on the decisions topic, nor on the commands topic;
 * - the ledger's own read_committed readers saw exactly what Java's read_committed reader sees (the
 *   projector's decisions), and how many records of aborted transactions read_uncommitted sees;
 * - the projector's views equal a rebuild from the topics;
 * - every re-dispatch reached its target worker at most once, and (no dispatcher being killed here)
 *   exactly once.
 */
import { spawn } from "node:child_process";
import Database from "better-sqlite3";
import type avsc from "avsc";
import {
  BatchOrderFold,
  createDecider,
  defaultRuleSet,
  parseObservation,
  type PolicyVersion,
  type RecordedBatch,
  withPolicyVersion,
} from "@a2a-ledger/core";
import { repoRoot } from "@a2a-ledger/infra";
import { endOffsets } from "@a2a-ledger/kafka";
import type { Decision, Observation } from "@a2a-ledger/schemas";
import { join } from "node:path";
import { type ClusterUnderTest, eventually, quietAdmin } from "./cluster.ts";
import type { LoadResult } from "./load.ts";
import type { Ledger } from "./mesh/ledger.ts";
import { type OracleRecord, readWithJava } from "./oracle/java-reader.ts";
import { WireDecoder } from "./oracle/wire-decode.ts";

export interface Findings {
  observations: number;
  acknowledged: number;
  missing: string[];
  copiesOverBound: string[];
  twoPayloads: string[];
  /** eventIds of other observers recorded again with other content, and the fields that differ. */
  resighted: { eventId: string; differ: string[] }[];
  decisions: number;
  duplicateDecisionIds: string[];
  duplicateCommandIds: string[];
  commandsNotDecided: string[];
  /** Per correlation, the committed decisions and the oracle's, where they differ. */
  replayDiffers: { correlationId: string; committed: string[]; expected: string[] }[];
  /** The oracle's order: recorded batches folded, and observations after them (by record time). */
  replayOrder: { batches: number; observationsAfterBatches: number };
  expectedDecisions: number;
  redispatches: number;
  /** Re-dispatch decision ids and how often the target worker got each (only those not exactly 1). */
  deliveries: { decisionId: string; received: number }[];
  misdirected: string[];
  abortedRecords: number;
  projectorDecisionsDiffer: { onlyJava: string[]; onlyProjector: string[] };
  viewsDiffer: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Waits until the ledger is at rest: every lost task re-dispatched and nothing more reaching w-target
 * for a while; then the dispatcher and the proxies stop (they would keep recording the parked canaries'
 * polls), and the reconcilers commit every observation, with nothing new arriving for a while.
 */
export async function settle(
  cluster: ClusterUnderTest,
  ledger: Ledger,
  load: LoadResult,
  timeoutMs = 480_000,
): Promise<void> {
  const target = ledger.workers?.target;
  let last = -1;
  let quietSince = Date.now();
  // Every lost task re-dispatched, or (when the ledger decided otherwise, which the verdict then shows)
  // nothing more arriving at w-target for a minute.
  await eventually(
    "every lost task re-dispatched to w-target, and nothing more arriving there for 5 s",
    async () => {
      const received = target?.received.length ?? 0;
      if (received !== last) {
        last = received;
        quietSince = Date.now();
      }
      const delivered = [...(target?.byDecision().keys() ?? [])].filter((id) =>
        id.includes("RedispatchCommanded"),
      ).length;
      const quiet = Date.now() - quietSince;
      return (delivered >= load.lost.length && quiet > 5_000) || quiet > 60_000 ? true : undefined;
    },
    timeoutMs,
    500,
  );
  await ledger.stopSources();
  const admin = quietAdmin(cluster.brokers);
  await admin.connect();
  try {
    let total = -1;
    quietSince = Date.now();
    await eventually(
      "the reconcilers at the end of the observations, with nothing new for 5 s",
      async () => {
        const ends = await endOffsets(admin, ledger.topics.observations);
        const committed = await admin.fetchOffsets({
          groupId: ledger.reconcilerGroup,
          topics: [ledger.topics.observations],
        });
        const offsets = new Map((committed[0]?.partitions ?? []).map((p) => [p.partition, Number(p.offset)]));
        const atEnd = ends.every((e) => Number(e.high) === 0 || (offsets.get(e.partition) ?? -1) >= Number(e.high));
        const now = ends.reduce((n, e) => n + Number(e.high), 0);
        if (now !== total) {
          total = now;
          quietSince = Date.now();
        }
        return atEnd && Date.now() - quietSince > 5_000 ? true : undefined;
      },
      timeoutMs,
      1_000,
    );
  } finally {
    await admin.disconnect();
  }
}

/** A long as the decoder gives it (a number, or a union branch wrapped as {long}). */
const long = (v: unknown): number | null =>
  v === null || v === undefined ? null : typeof v === "object" ? Number((v as { long: unknown }).long) : Number(v);

/** A ReconcilerBatch record's fields as the fold takes them. */
function batchOf(f: Record<string, unknown>): RecordedBatch {
  return {
    partition: Number(f.partition),
    fromOffset: long(f.fromOffset),
    toOffset: long(f.toOffset),
    recheck: f.recheck === true,
    capabilityReads: (f.capabilityReads as { partition: unknown; offset: unknown }[]).map((r) => ({
      partition: Number(r.partition),
      offset: Number(r.offset),
    })),
    capabilityOwnBatches: ((f.capabilityOwnBatches ?? []) as { partition: unknown; offset: unknown }[]).map((r) => ({
      partition: Number(r.partition),
      offset: Number(r.offset),
    })),
    policyVersions: Number(f.policyVersions),
    // The retention the reconciler evicted by: the oracle evicts alike (null: it kept every correlation).
    retention:
      long(f.retentionMs) === null
        ? null
        : { finishedMs: long(f.retentionMs) as number, staleMs: long(f.staleMs) ?? (long(f.retentionMs) as number) },
  };
}

function decodeAll(decoder: WireDecoder, records: readonly OracleRecord[]) {
  return Promise.all(
    records
      .filter((r) => r.value !== null)
      .map(async (r) => ({ record: r, decoded: await decoder.decode(r.value as Buffer) })),
  );
}

/** Records of several partitions merged by record timestamp, each partition in offset order. */
function mergeByTimestamp<T extends { record: OracleRecord }>(items: readonly T[]): T[] {
  return [...items].sort(
    (a, b) =>
      a.record.timestamp - b.record.timestamp ||
      a.record.partition - b.record.partition ||
      a.record.offset - b.record.offset,
  );
}

const typeOfDecision = new Map<string, avsc.Type>();

function inSchemaOrder(type: avsc.Type, name: string, fields: object): string {
  return JSON.stringify({ type: name, ...(type.clone(fields, { wrapUnions: false } as avsc.CloneOptions) as object) });
}

/** Every view row of the projector's active generation but its offsets, by table. */
function dumpViews(file: string): Record<string, string[]> {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const active = db.prepare("SELECT gen FROM projector_active WHERE id = 1").get() as { gen: number };
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[])
      .map((t) => t.name)
      .filter((n) => n.startsWith(`v${active.gen}_`) && !n.endsWith("_offset"));
    const out: Record<string, string[]> = {};
    for (const table of tables) {
      const rows = db.prepare(`SELECT * FROM ${table}`).all() as Record<string, unknown>[];
      out[table.slice(`v${active.gen}_`.length)] = rows
        .map((r) => JSON.stringify(r, (_k, v: unknown) => (typeof v === "bigint" ? Number(v) : v)))
        .sort();
    }
    return out;
  } finally {
    db.close();
  }
}

function decisionIdsOfProjector(file: string): Set<string> {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const active = db.prepare("SELECT gen FROM projector_active WHERE id = 1").get() as { gen: number };
    return new Set(
      (
        db.prepare(`SELECT event_id FROM v${active.gen}_event WHERE kind = 'decision'`).all() as { event_id: string }[]
      ).map((r) => r.event_id),
    );
  } finally {
    db.close();
  }
}

function runRebuild(ledger: Ledger, cluster: ClusterUnderTest): Promise<string> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", join(repoRoot, "services/projector/src/main.ts"), "rebuild"],
    {
      env: {
        ...process.env,
        KAFKA_BROKERS: cluster.brokers,
        SCHEMA_REGISTRY_URL: cluster.registryUrl,
        A2A_LEDGER_TOPIC_SUFFIX: ledger.suffix,
        A2A_LEDGER_PROJECTOR_SQLITE_PATH: ledger.projectorDb,
        A2A_LEDGER_PROJECTOR_GROUP: `projector-${ledger.suffix}`,
        A2A_LEDGER_PROJECTOR_LOG_LEVEL: "info",
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  // The rebuild's last words, for the error: a long run's whole log could pass V8's longest string.
  let output = "";
  const keep = (c: Buffer) => {
    output = (output + c.toString()).slice(-65_536);
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 300_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(output);
      else reject(new Error(`projector rebuild exited ${code}:\n${output.slice(-3000)}`));
    });
  });
}

export async function judge(cluster: ClusterUnderTest, ledger: Ledger, load: LoadResult): Promise<Findings> {
  const decoder = new WireDecoder(cluster.registryUrl);
  const t = ledger.topics;
  const committed = await readWithJava(cluster.brokers, "read_committed", [
    t.observations,
    t.decisions,
    t.commands,
    t.changelog,
    t.capabilities,
    t.policy,
    t.batches,
  ]);
  const uncommitted = await readWithJava(cluster.brokers, "read_uncommitted", [
    t.decisions,
    t.commands,
    t.changelog,
    t.capabilities,
  ]);
  const of = (topic: string) => committed.filter((r) => r.topic === topic);

  // Observations: acknowledged ones present, copies bounded, one payload per eventId.
  const observations = await decodeAll(decoder, of(t.observations));
  const copies = new Map<string, string[]>();
  for (const { decoded } of observations) {
    const id = String(decoded.fields.eventId);
    (copies.get(id) ?? copies.set(id, []).get(id))?.push(JSON.stringify({ type: decoded.type, ...decoded.fields }));
  }
  const missing = [...load.acknowledged.keys()].filter((id) => !copies.has(id));
  const copiesOverBound = [...load.acknowledged.keys()].filter(
    (id) => (copies.get(id)?.length ?? 0) > (load.requestsPerEvent.get(id) ?? 1),
  );
  const several = [...copies].filter(([, payloads]) => new Set(payloads).size > 1);
  const twoPayloads = several.filter(([id]) => load.acknowledged.has(id)).map(([id]) => id);
  // Other observers (the proxies, the dispatcher) may record one fact again under its id with another
  // occurredAt (a canary polled twice in one state): the ledger keeps the first. Reported, with the fields that differ.
  const resighted = several
    .filter(([id]) => !load.acknowledged.has(id))
    .map(([id, payloads]) => {
      const [a, b] = [...new Set(payloads)].map((p) => JSON.parse(p) as Record<string, unknown>) as [
        Record<string, unknown>,
        Record<string, unknown>,
      ];
      return {
        eventId: id,
        differ: Object.keys({ ...a, ...b }).filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k])),
      };
    });

  // Decisions and commands: unique ids; commands are decisions.
  const decisions = await decodeAll(decoder, of(t.decisions));
  const commands = await decodeAll(decoder, of(t.commands));
  const ids = decisions.map((d) => String(d.decoded.fields.decisionId));
  const commandIds = commands.map((d) => String(d.decoded.fields.decisionId));
  const dup = (list: string[]) => [...new Set(list.filter((id, i) => list.indexOf(id) !== i))];
  const decided = new Set(ids);

  // The replay oracle: the observations topic through the rules, judged by the trust policy versions
  // recorded on the policy topic (as the reconciler judges them), batch by batch in the order the
  // reconciler's transactions recorded what they read (a2a.reconciler.batches.v1, as Java read it),
  // each against the capability table it read; what no batch holds, after them by record time.
  const parse = ({ decoded }: { decoded: { type: string; fields: Record<string, unknown> } }): Observation => {
    const parsed = parseObservation({ type: decoded.type, ...decoded.fields });
    if (!parsed.ok) throw new Error(`an observation on the topic does not parse: ${JSON.stringify(parsed.issues)}`);
    return parsed.observation;
  };
  const batches = (await decodeAll(decoder, of(t.batches)))
    .sort((a, b) => a.record.offset - b.record.offset)
    .map(({ decoded }) => batchOf(decoded.fields));
  const byPartition = new Map<number, typeof observations>();
  for (const o of observations)
    (byPartition.get(o.record.partition) ?? byPartition.set(o.record.partition, []).get(o.record.partition))?.push(o);
  for (const list of byPartition.values()) list.sort((a, b) => a.record.offset - b.record.offset);
  const inBatches = new Set<(typeof observations)[number]>();
  const steps: { batch?: RecordedBatch; log: Observation[] }[] = batches.map((batch) => {
    const held = (byPartition.get(batch.partition) ?? []).filter(
      (o) =>
        batch.fromOffset !== null &&
        batch.toOffset !== null &&
        o.record.offset >= batch.fromOffset &&
        o.record.offset <= batch.toOffset,
    );
    for (const o of held) inBatches.add(o);
    return { batch, log: held.map(parse) };
  });
  steps.push({ log: mergeByTimestamp(observations.filter((o) => !inBatches.has(o))).map(parse) });
  let versions: PolicyVersion[] = [];
  for (const { decoded } of await decodeAll(decoder, of(t.policy))) {
    if (decoded.type !== "TrustPolicy") continue;
    const f = decoded.fields as { version: number; validFrom: number; trustedVendors: string[] };
    versions = withPolicyVersion(versions, {
      version: Number(f.version),
      validFrom: Number(f.validFrom),
      trustedVendors: [...f.trustedVendors],
    });
  }
  const folder = new BatchOrderFold(createDecider(defaultRuleSet), { versions });
  const expected: Decision[] = steps.flatMap((step) => folder.fold(step.log, step.batch).decisions);
  const replayOrder = { batches: batches.length, observationsAfterBatches: steps.at(-1)?.log.length ?? 0 };
  for (const d of decisions) typeOfDecision.set(d.decoded.type, await decoder.schema(d.decoded.schemaId));
  const byCorrelation = (list: { correlationId: string; json: string }[]) => {
    const out = new Map<string, string[]>();
    for (const d of list) (out.get(d.correlationId) ?? out.set(d.correlationId, []).get(d.correlationId))?.push(d.json);
    return out;
  };
  const committedBy = byCorrelation(
    decisions.map((d) => ({
      correlationId: String(d.decoded.fields.correlationId),
      json: inSchemaOrder(typeOfDecision.get(d.decoded.type) as avsc.Type, d.decoded.type, d.decoded.fields),
    })),
  );
  const expectedBy = byCorrelation(
    expected.map((d) => {
      const { type, ...fields } = d;
      const avroType = typeOfDecision.get(type);
      return {
        correlationId: d.correlationId,
        json: avroType === undefined ? JSON.stringify(d) : inSchemaOrder(avroType, type, fields),
      };
    }),
  );
  const replayDiffers: Findings["replayDiffers"] = [];
  for (const correlationId of new Set([...committedBy.keys(), ...expectedBy.keys()])) {
    const a = committedBy.get(correlationId) ?? [];
    const b = expectedBy.get(correlationId) ?? [];
    if (JSON.stringify(a) !== JSON.stringify(b)) replayDiffers.push({ correlationId, committed: a, expected: b });
  }

  // Deliveries at the workers.
  const redispatchIds = commands
    .filter((c) => c.decoded.type === "RedispatchCommanded")
    .map((c) => String(c.decoded.fields.decisionId));
  const atTarget = ledger.workers?.target.byDecision() ?? new Map<string, number>();
  const atLost = ledger.workers?.lost.byDecision() ?? new Map<string, number>();
  const deliveries = redispatchIds
    .map((decisionId) => ({ decisionId, received: atTarget.get(decisionId) ?? 0 }))
    .filter((d) => d.received !== 1);
  const misdirected = redispatchIds.filter((id) => atLost.has(id));

  // The ledger's read_committed reader (the projector) against Java's, then its views against a rebuild.
  await ledger.stopProjector();
  const projected = decisionIdsOfProjector(ledger.projectorDb);
  const projectorDecisionsDiffer = {
    onlyJava: ids.filter((id) => !projected.has(id)),
    onlyProjector: [...projected].filter((id) => !decided.has(id)),
  };
  const live = dumpViews(ledger.projectorDb);
  await runRebuild(ledger, cluster);
  await sleep(100);
  const rebuilt = dumpViews(ledger.projectorDb);
  // Row by row: a long run's tables as one string each would pass V8's longest string.
  const sameRows = (a: readonly string[] = [], b: readonly string[] = []) =>
    a.length === b.length && a.every((row, i) => row === b[i]);
  const viewsDiffer = [...new Set([...Object.keys(live), ...Object.keys(rebuilt)])].filter(
    (table) => !sameRows(live[table], rebuilt[table]),
  );

  const transactional = [t.decisions, t.commands, t.changelog, t.capabilities];
  const abortedRecords =
    uncommitted.filter((r) => transactional.includes(r.topic)).length -
    committed.filter((r) => transactional.includes(r.topic)).length;

  return {
    observations: observations.length,
    acknowledged: load.acknowledged.size,
    missing,
    copiesOverBound,
    twoPayloads,
    resighted,
    decisions: decisions.length,
    duplicateDecisionIds: dup(ids),
    duplicateCommandIds: dup(commandIds),
    commandsNotDecided: commandIds.filter((id) => !decided.has(id)),
    replayDiffers,
    replayOrder,
    expectedDecisions: expected.length,
    redispatches: redispatchIds.length,
    deliveries,
    misdirected,
    abortedRecords,
    projectorDecisionsDiffer,
    viewsDiffer,
  };
}
