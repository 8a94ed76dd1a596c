import { describe, expect, it } from "vitest";
import type { Message, RecordMetadata } from "kafkajs";
import { partitionOf } from "./partition.ts";
import {
  byPartition,
  IncompleteSendError,
  type RecordSender,
  sendAcknowledged,
  sendByPartition,
} from "./partition-send.ts";

/** A sender that records each send and acknowledges what it was given (or what `answer` says). */
function recordingSender(
  answer?: (topic: string, messages: Message[]) => RecordMetadata[],
): RecordSender & { sends: { topic: string; partitions: number[] }[] } {
  const sends: { topic: string; partitions: number[] }[] = [];
  return {
    sends,
    async send({ topic, messages }) {
      const partitions = [...new Set(messages.map((m) => m.partition as number))];
      sends.push({ topic, partitions });
      return (
        answer?.(topic, messages) ?? partitions.map((partition) => ({ topicName: topic, partition, errorCode: 0 }))
      );
    },
  };
}

describe("sending by partition", () => {
  const keys = Array.from({ length: 40 }, (_, i) => `corr-${i}`);
  const messages: Message[] = keys.map((key) => ({ key, value: key }));

  it("puts each keyed record on the partition of the Java client's murmur2, and keeps explicit partitions", () => {
    const groups = byPartition([...messages, { key: "corr-0", value: "pinned", partition: 5 }], 6);
    for (const [partition, records] of groups) {
      for (const r of records) expect(r.value === "pinned" ? 5 : partitionOf(r.key as string, 6)).toBe(partition);
    }
    expect([...groups.values()].flat()).toHaveLength(41);
  });

  it("keeps the order of each partition's records", () => {
    const groups = byPartition(messages, 6);
    for (const records of groups.values()) {
      const order = records.map((r) => keys.indexOf(r.key as string));
      expect(order).toEqual([...order].sort((a, b) => a - b));
    }
  });

  it("sends each partition on its own, in turn for a transaction", async () => {
    const sender = recordingSender();
    const acks = await sendByPartition(sender, "t", messages, 6, { parallel: false });
    expect(sender.sends.every((s) => s.partitions.length === 1)).toBe(true);
    expect(sender.sends.map((s) => s.partitions[0])).toEqual(
      [...byPartition(messages, 6).keys()].sort((a, b) => a - b),
    );
    expect(acks).toHaveLength(sender.sends.length);
  });

  it("fails, naming the partition, when a send resolves without acknowledging its partition", async () => {
    const sender = recordingSender((topic) => [{ topicName: topic, partition: 99, errorCode: 0 }]);
    const error = await sendByPartition(sender, "t", messages.slice(0, 1), 6, { parallel: true }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(IncompleteSendError);
    expect((error as Error).message).toMatch(new RegExp(`t/${partitionOf("corr-0", 6)}`));
  });

  it("fails when the acknowledgement carries an error code", async () => {
    const sender = recordingSender((topic, records) => [
      { topicName: topic, partition: records[0]?.partition as number, errorCode: 6 },
    ]);
    await expect(sendByPartition(sender, "t", messages.slice(0, 1), 6, { parallel: true })).rejects.toThrow(
      /error code 6/,
    );
  });

  it("refuses a record for a partition the topic does not have", () => {
    expect(() => byPartition([{ key: "k", value: "v", partition: 6 }], 6)).toThrow(RangeError);
  });

  describe("one send for every partition (a plain producer whose readers de-duplicate)", () => {
    it("sends every partition's records in one send, each on its key's partition, and returns one acknowledgement per partition", async () => {
      const sender = recordingSender();
      const acks = await sendAcknowledged(sender, "t", messages, 6);
      const written = [...byPartition(messages, 6).keys()].sort((a, b) => a - b);
      expect(sender.sends).toEqual([{ topic: "t", partitions: expect.arrayContaining(written) }]);
      expect(sender.sends[0]?.partitions).toHaveLength(written.length);
      expect(acks.map((a) => a.partition)).toEqual(written);
    });

    it("fails, naming the partition, when a partition written has no acknowledgement (a retry that never sent it)", async () => {
      const first = partitionOf("corr-0", 6);
      const sender = recordingSender((topic, records) =>
        [...new Set(records.map((r) => r.partition as number))]
          .filter((p) => p !== first)
          .map((partition) => ({ topicName: topic, partition, errorCode: 0 })),
      );
      const error = await sendAcknowledged(sender, "t", messages, 6).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(IncompleteSendError);
      expect((error as IncompleteSendError).partition).toBe(first);
    });

    it("resolves when a partition is acknowledged twice (a retry that sent it again: readers de-duplicate)", async () => {
      const sender = recordingSender((topic, records) => {
        const partitions = [...new Set(records.map((r) => r.partition as number))];
        return [...partitions, partitions[0] as number].map((partition) => ({
          topicName: topic,
          partition,
          errorCode: 0,
        }));
      });
      const acks = await sendAcknowledged(sender, "t", messages, 6);
      expect(new Set(acks.map((a) => a.partition)).size).toBe(acks.length);
    });

    it("fails when an acknowledgement carries an error code", async () => {
      const sender = recordingSender((topic, records) =>
        [...new Set(records.map((r) => r.partition as number))].map((partition, i) => ({
          topicName: topic,
          partition,
          errorCode: i === 0 ? 6 : 0,
        })),
      );
      await expect(sendAcknowledged(sender, "t", messages, 6)).rejects.toThrow(/error code 6/);
    });
  });
});
