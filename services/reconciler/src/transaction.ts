/**
 * One transaction of a partition: decisions, commands, capability snapshots, changelog updates, dead
 * letters, the record of what the batch read (a2a.reconciler.batches.v1) and the consumed offsets of one
 * batch commit in one Kafka transaction, under the partition's transactional id. Whatever fails, the
 * producer is abandoned and the partition's state restored again.
 */
import type { Decider } from "@a2a-ledger/core";
import { sendByPartition, type Transaction } from "@a2a-ledger/kafka";
import type { Logger } from "@a2a-ledger/logging";
import type { Decision, Observation } from "@a2a-ledger/schemas";
import type { Serde } from "@a2a-ledger/schemas/serde";
import type { KafkaMessage } from "kafkajs";
import { type BatchItem, processBatch } from "./batch.ts";
import { streamTimeKey } from "./changelog.ts";
import { type CapabilityFollower, sourceHeaders } from "./capability-follower.ts";
import type { PolicyFollower } from "./policy-follower.ts";
import type { ReconcilerConfig } from "./config.ts";
import type { ProbeCardWait } from "./card-wait.ts";
import type { CorrelationBudget } from "./correlation-budget.ts";
import { PoisonRecordError, RejoinGroupError, TransactionOutcomeUnknownError, withinDeadline } from "./errors.ts";
import type { GroupMembership } from "./group-membership.ts";
import type { ReconcilerMetrics } from "./metrics.ts";
import { classifyDecodeError, deadLetter } from "./poison.ts";
import type { PartitionStore } from "./restore.ts";
import type { StageClocks } from "./stage-clock.ts";

export interface TransactionParts {
  readonly config: ReconcilerConfig;
  readonly serde: Serde;
  readonly decider: Decider;
  readonly capabilities: CapabilityFollower;
  readonly policies: PolicyFollower;
  readonly group: GroupMembership;
  readonly store: PartitionStore;
  readonly clocks: StageClocks;
  readonly metrics: ReconcilerMetrics;
  readonly log: Logger;
  /** Live correlations this instance may hold: a batch takes only the observations whose correlations fit. */
  readonly budget: CorrelationBudget;
  /** Probe results that wait for the card they name (card-wait.ts). */
  readonly cardWait: ProbeCardWait;
  /** Partitions of an output topic, as the topics are created in code. */
  partitionsOf(topic: string): number;
}

export class PartitionTransactions {
  constructor(private readonly parts: TransactionParts) {}

  private async decode(message: KafkaMessage): Promise<Observation> {
    if (message.value === null) throw new PoisonRecordError("RECONCILER_UNDECODABLE", "tombstone (null value)");
    let decoded: Awaited<ReturnType<Serde["decode"]>>;
    try {
      decoded = await this.parts.serde.decode(message.value);
    } catch (error) {
      const poison = classifyDecodeError(error);
      if (poison === undefined) throw error;
      throw poison;
    }
    if (decoded.group !== "observations")
      throw new PoisonRecordError("RECONCILER_NOT_AN_OBSERVATION", `a ${decoded.typeName} record`);
    const observation = decoded.record as Observation;
    if (message.key?.toString("utf8") !== observation.correlationId) {
      throw new PoisonRecordError(
        "RECONCILER_KEY_MISMATCH",
        `key ${JSON.stringify(message.key?.toString("utf8") ?? null)}, correlationId ${JSON.stringify(observation.correlationId)}`,
      );
    }
    return observation;
  }

  /**
   * One transaction for a partition: the longest prefix of `given` whose correlations fit the memory
   * budget and holds no probe result waiting for its card, folded and committed, after the records the
   * previous owner already committed (taken, not folded: see PartitionStore.alreadyCommitted). Returns
   * how many messages it took: fewer than given when the budget is reached or a probe waits (the rest is
   * not decided and its offsets are not committed; the caller fetches it again after a pause).
   */
  async transact(partition: number, given: KafkaMessage[], heartbeat?: () => Promise<void>): Promise<number> {
    const ledger = await this.parts.store.ledgerOf(partition, heartbeat);
    // Records the previous owner folded and committed, fetched again: taken, and not folded twice.
    const skipped = this.parts.store.alreadyCommitted(partition, given);
    if (skipped > 0) {
      this.parts.metrics.alreadyCommitted.inc({ partition: String(partition) }, skipped);
      this.parts.log.info(
        { partition, from: given[0]?.offset, records: skipped },
        "skipping records the previous owner committed",
      );
    }
    const messages = given.slice(skipped);
    if (messages.length === 0 && given.length > 0) return skipped;
    const admission = this.parts.budget.admit(
      partition,
      messages.map((m) => m.key?.toString("utf8") ?? null),
      (id) => ledger.stateOf(id) !== undefined,
    );
    try {
      if (admission.taken === 0 && messages.length > 0) return skipped;
      return skipped + (await this.commit(partition, messages.slice(0, admission.taken), heartbeat));
    } finally {
      admission.release();
    }
  }

  /**
   * One transaction for a partition: `messages` folded (none for a re-examination only) up to a probe
   * result waiting for its card, blocked correlations re-examined when the capability table changed since
   * their last look. Returns how many messages it folded (0: no transaction, a probe waits first).
   */
  private async commit(partition: number, given: KafkaMessage[], heartbeat?: () => Promise<void>): Promise<number> {
    const { config, serde, decider, capabilities, policies, group, store, clocks, metrics, log } = this.parts;
    const { topics, groupId } = config;
    const stage = clocks.stageClock(partition);
    const ledger = await store.ledgerOf(partition, heartbeat);
    const producerPromise = group.producerFor(partition);
    const producer = await producerPromise;
    stage("restore");
    // Decoding needs no capabilities: it runs while the capability table catches up (a round trip).
    // The trust policy too: a version committed before this batch began governs its events (DESIGN §4).
    const caughtUp = Promise.all([capabilities.catchUp(), policies.catchUp()]);
    caughtUp.catch(() => undefined);
    let items: BatchItem[] = [];
    for (const message of given) {
      try {
        items.push({ offset: message.offset, observation: await this.decode(message) });
      } catch (error) {
        if (!(error instanceof PoisonRecordError)) throw error;
        items.push({ offset: message.offset, poison: error });
      }
    }
    stage("decode");
    await caughtUp;
    stage("capabilities");
    const taken = given.length === 0 ? 0 : this.parts.cardWait.take(partition, items, capabilities.table);
    if (taken === 0 && given.length > 0) return 0;
    items = items.slice(0, taken);
    const messages = given.slice(0, taken);
    const version = capabilities.version;
    // What the batch is judged by, recorded with it: replay folds it against the same table (batch-order.ts in the core).
    const reads = capabilities.reads();
    const ownBatches = capabilities.ownBatches();
    const policyVersions = policies.highestVersion;
    const recheck = ledger.recheckDue(version);
    const streamTimeBefore = ledger.streamTime;
    // The ledger's fold is pending from here: anything that fails before the transaction drops the ledger
    // (the fold has moved its retention on), and the partition is restored from the changelog.
    const prepare = async () => {
      const outcome = processBatch(items, {
        decider,
        ledger,
        policy: policies.history,
        capabilities: capabilities.table,
        recheck,
      });
      const byOffset = new Map(messages.map((m) => [m.offset, m]));
      const last = messages[messages.length - 1];
      stage("rules");

      // Decisions and snapshots come from the typed rules, so they fit their schemas: the direct encoder
      // (avsc still refuses a wrong type) saves the registry client's per-record work.
      const encoded = new Map<Decision, Buffer>();
      for (const d of outcome.decisions) encoded.set(d, await serde.encodeValidated(d));
      const decisions = outcome.decisions.map((d) => ({ key: d.correlationId, value: encoded.get(d) as Buffer }));
      const commands = outcome.commands.map((d) => ({ key: d.correlationId, value: encoded.get(d) as Buffer }));
      const first = messages[0];
      const source = { partition, offset: last === undefined ? -1 : Number(last.offset) };
      const snapshots: { key: string; value: Buffer; headers: Record<string, string> }[] = [];
      for (const s of outcome.capabilityUpdates)
        snapshots.push({
          key: s.workerId,
          value: await serde.encodeValidated({ type: "CapabilitySnapshot", ...s }),
          headers: sourceHeaders(source),
        });
      const batch = await serde.encodeValidated({
        type: "ReconcilerBatch",
        partition,
        fromOffset: first === undefined ? null : Number(first.offset),
        toOffset: last === undefined ? null : Number(last.offset),
        recheck,
        capabilityReads: [...reads],
        capabilityOwnBatches: [...ownBatches],
        policyVersions,
        rulesVersion: decider.ruleSet.rulesVersion,
        retentionMs: config.retention.finishedMs,
        staleMs: config.retention.staleMs,
        committedAt: Date.now(),
      });
      const changelog: { key: string; value: Buffer | null; partition: number }[] = [...outcome.states].map(
        ([correlationId, { serialized }]) => ({
          key: correlationId,
          value: Buffer.from(serialized.buffer, serialized.byteOffset, serialized.byteLength),
          partition,
        }),
      );
      // Correlations that left: a tombstone each, so compaction forgets them too.
      for (const correlationId of outcome.expired) changelog.push({ key: correlationId, value: null, partition });
      const streamTime = ledger.streamTime;
      if (streamTime !== undefined && streamTime !== streamTimeBefore)
        changelog.push({ key: streamTimeKey, value: Buffer.from(String(streamTime)), partition });
      const dead = outcome.poison.map(({ offset, error }) =>
        deadLetter({ topic: topics.observations, partition }, byOffset.get(offset) as KafkaMessage, error),
      );
      return { outcome, last, source, decisions, commands, snapshots, batch, changelog, dead };
    };
    let prepared: Awaited<ReturnType<typeof prepare>>;
    try {
      prepared = await prepare();
    } catch (error) {
      ledger.discard();
      store.dropState(partition);
      throw error;
    }
    const { outcome, last, source, decisions, commands, snapshots, batch, changelog, dead } = prepared;
    stage("encode");

    if (last === undefined && outcome.decisions.length === 0 && changelog.length === 0) {
      // A re-examination that decided nothing and changed nothing: no transaction.
      ledger.commit(outcome.folded, version);
      return messages.length;
    }
    const deadlineMs = config.transactionStepTimeoutMs;
    let tx: Transaction | undefined;
    let changelogEnd: bigint | undefined;
    try {
      tx = await withinDeadline(producer.transaction(), "begin", deadlineMs);
      const sends = [
        { topic: topics.decisions, messages: decisions },
        { topic: topics.commands, messages: commands },
        { topic: topics.capabilities, messages: snapshots },
        { topic: topics.changelog, messages: changelog },
        { topic: topics.dlq, messages: dead },
        { topic: topics.batches, messages: [{ key: String(partition), value: batch }] },
      ].filter((s) => s.messages.length > 0);
      // One send per topic-partition, each acknowledgement checked: kafkajs's multi-partition send can
      // drop or duplicate a partition's records when a leader moves (see @a2a-ledger/kafka partition-send).
      const open = tx;
      const sendAll = async () => {
        for (const { topic, messages: records } of sends) {
          const acks = await sendByPartition(open, topic, records, this.parts.partitionsOf(topic), { parallel: false });
          // Where the commit leaves the partition's changelog: its records, then one commit marker.
          const ack = topic === topics.changelog ? acks.find((a) => a.partition === partition) : undefined;
          if (ack?.baseOffset !== undefined) changelogEnd = BigInt(ack.baseOffset) + BigInt(records.length) + 1n;
        }
      };
      if (sends.length > 0) await withinDeadline(sendAll(), "send", deadlineMs);
      stage("send");
      if (last !== undefined)
        await withinDeadline(
          tx.sendOffsets({
            consumerGroupId: groupId,
            topics: [
              {
                topic: topics.observations,
                partitions: [{ partition, offset: (BigInt(last.offset) + 1n).toString() }],
              },
            ],
          }),
          "offsets",
          deadlineMs,
        );
      stage("offsets");
      await withinDeadline(tx.commit(), "commit", deadlineMs);
      stage("commit");
    } catch (error) {
      // Whatever failed, the outcome may be unknown (a commit that timed out may still complete): the
      // producer is never used again. The next try creates a new one under the same transactional id,
      // which fences this one (and completes or aborts what it left open), and restores the state from
      // the changelog as committed. An abort is attempted, but never waited for long.
      if (tx !== undefined) await withinDeadline(tx.abort(), "abort", 5_000).catch(() => undefined);
      metrics.aborts.inc();
      if (error instanceof TransactionOutcomeUnknownError) metrics.unknownOutcomes.inc({ step: error.step });
      // No producer is initialised again before the group has assigned the partition afresh.
      group.abandon(partition, producerPromise);
      ledger.discard();
      store.dropState(partition);
      void withinDeadline(producer.disconnect(), "disconnect", 5_000).catch(() => undefined);
      log.error(
        { partition, firstOffset: messages[0]?.offset, err: error, code: (error as { code?: string }).code },
        "transaction aborted",
      );
      throw new RejoinGroupError(`a transaction of partition ${partition} failed`, error);
    }
    ledger.commit(outcome.folded, version);
    // A ledger dropped or restored anew meanwhile (the partition was revoked) is not recorded as committed.
    store.committed(partition, ledger, changelogEnd);
    // What this transaction committed is visible to this partition's next batch at once: a read_committed
    // reader of the topic may not reach it yet (another partition's open transaction holds the stable
    // offset back). The follower skips it when it reads it.
    capabilities.applyCommitted(outcome.capabilityUpdates, outcome.cards, source);
    metrics.commits.inc();
    log.debug(
      {
        partition,
        from: messages[0]?.offset,
        to: last?.offset,
        decisions: decisions.length,
        changelog: changelog.length,
      },
      "transaction committed",
    );
    metrics.observations.inc(items.length - outcome.poison.length);
    for (const d of outcome.decisions)
      metrics.decisions.inc({ kind: d.type === "ContractViolation" ? `ContractViolation:${d.kind}` : d.type });
    for (const p of outcome.poison) metrics.deadLetters.inc({ reason: p.error.reason });
    const stale = outcome.decisions.filter((d) => d.type === "CorrelationExpired").length;
    if (stale > 0) metrics.evicted.inc({ outcome: "stale" }, stale);
    if (outcome.expired.size > stale) metrics.evicted.inc({ outcome: "finished" }, outcome.expired.size - stale);
    return messages.length;
  }
}
