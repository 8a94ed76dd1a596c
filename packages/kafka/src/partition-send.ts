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
