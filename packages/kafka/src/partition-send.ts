/**
 * Sending records so that a leader change can neither drop nor duplicate them: one kafkajs send per
 * topic-partition, each checked against its acknowledgement.
 *
 * kafkajs 2.2.4 retries a multi-partition send by broker, not by partition: after a failure it refreshes
 * the metadata, maps every partition to its leader again, and resends to the brokers that have not
 * answered yet. When a leader moved in between, a partition already acknowledged by its old leader is
 * sent again to its new one with the next sequence number (a duplicate the idempotent producer does not
 * catch, inside one transaction), and a partition whose new leader is a broker that already answered is
 * never sent at all — while the send resolves as if it had been. Both were seen in the fault tests on
 * three brokers: a committed transaction holding a command twice, and one missing its changelog record.
 * A send of one partition goes to one broker, so a retry can only be a resend of that partition to its
 * current leader, with the same sequence number.
 *
 * A plain producer whose records are told apart downstream by their own ids (ingest's observations, which
 * every reader de-duplicates by eventId) may instead send a whole set of partitions at once, one produce
 * request per broker (`sendAcknowledged`): a partition the retry never sent has no acknowledgement, so the
 * send fails and nothing is reported as written that was not; a partition sent twice holds its records
 * twice, as it would after a client's own resend. Never inside a transaction, where a duplicate commits.
 */
import type { Message, RecordMetadata } from "kafkajs";
import { partitionOf } from "./partition.ts";

/** A kafkajs producer or transaction: what can send. */
export interface RecordSender {
  send(record: { topic: string; messages: Message[]; acks?: number }): Promise<RecordMetadata[]>;
}

export class IncompleteSendError extends Error {
  override name = "IncompleteSendError";
  readonly retriable = true;
  constructor(
    readonly topic: string,
    readonly partition: number,
    detail: string,
  ) {
    super(`the send to ${topic}/${partition} was not acknowledged as sent: ${detail}`);
  }
}

/** The records of `messages` by partition: explicit partitions as given, keyed records by the Java client's murmur2. */
export function byPartition(messages: readonly Message[], partitions: number): Map<number, Message[]> {
  const out = new Map<number, Message[]>();
  for (const message of messages) {
    const partition =
      message.partition ??
      (message.key === null || message.key === undefined ? 0 : partitionOf(message.key, partitions));
    if (!Number.isInteger(partition) || partition < 0 || partition >= partitions)
      throw new RangeError(`partition ${partition} is not one of the ${partitions} partitions`);
    (out.get(partition) ?? out.set(partition, []).get(partition))?.push({ ...message, partition });
  }
  return out;
}

/** One partition's records through one send, and its acknowledgement checked. */
async function sendPartition(
  sender: RecordSender,
  topic: string,
  partition: number,
  messages: Message[],
): Promise<RecordMetadata> {
  const acks = await sender.send({ topic, messages, acks: -1 });
  const ack = acks.find((a) => a.topicName === topic && a.partition === partition);
  if (ack === undefined)
    throw new IncompleteSendError(
      topic,
      partition,
      `the acknowledgements name ${acks.map((a) => `${a.topicName}/${a.partition}`).join(", ") || "nothing"}`,
    );
  if (ack.errorCode !== 0) throw new IncompleteSendError(topic, partition, `error code ${ack.errorCode}`);
  return ack;
}

/**
 * Sends `messages` to `topic` (of `partitions` partitions), one send per partition: in turn for a
 * transaction (kafkajs adds partitions to a transaction one operation at a time), side by side for a
 * plain producer. Resolves with one acknowledgement per partition written.
 */
export async function sendByPartition(
  sender: RecordSender,
  topic: string,
  messages: readonly Message[],
  partitions: number,
  options: { parallel: boolean },
): Promise<RecordMetadata[]> {
  const groups = [...byPartition(messages, partitions)].sort(([a], [b]) => a - b);
  if (options.parallel)
    return Promise.all(groups.map(([partition, records]) => sendPartition(sender, topic, partition, records)));
  const acks: RecordMetadata[] = [];
  for (const [partition, records] of groups) acks.push(await sendPartition(sender, topic, partition, records));
  return acks;
}

/**
 * Sends `messages` to `topic` (of `partitions` partitions) through one send, which kafkajs makes one
 * produce request per broker, and checks that every partition written was acknowledged without an
 * error. For a plain producer whose records are de-duplicated downstream only (see above): a retry
 * inside kafkajs may write a partition's records twice, never report one as written that was not.
 * Resolves with one acknowledgement per partition written.
 */
export async function sendAcknowledged(
  sender: RecordSender,
  topic: string,
  messages: readonly Message[],
  partitions: number,
): Promise<RecordMetadata[]> {
  const groups = byPartition(messages, partitions);
  const acks = await sender.send({ topic, messages: [...groups.values()].flat(), acks: -1 });
  const byPartitionAck = new Map<number, RecordMetadata>();
  for (const ack of acks) {
    if (ack.topicName !== topic || !groups.has(ack.partition)) continue;
    if (ack.errorCode !== 0) throw new IncompleteSendError(topic, ack.partition, `error code ${ack.errorCode}`);
    byPartitionAck.set(ack.partition, ack);
  }
  const out: RecordMetadata[] = [];
  for (const partition of [...groups.keys()].sort((a, b) => a - b)) {
    const ack = byPartitionAck.get(partition);
    if (ack === undefined)
      throw new IncompleteSendError(
        topic,
        partition,
        `the acknowledgements name ${acks.map((a) => `${a.topicName}/${a.partition}`).join(", ") || "nothing"}`,
      );
    out.push(ack);
  }
  return out;
}
