import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Partitioners, type PartitionMetadata } from "./client.ts";
import { keyHash, partitionOf } from "./partition.ts";

/** kafkajs's own default partitioner (the Java client's murmur2 one): the oracle. */
const kafkajs = Partitioners.DefaultPartitioner();
const metadata = (partitions: number): PartitionMetadata[] =>
  Array.from({ length: partitions }, (_, partitionId) => ({
    partitionId,
    leader: 0,
    partitionErrorCode: 0,
    replicas: [0],
    isr: [0],
  }));
const byKafkajs = (key: string | Buffer, partitions: number): number =>
  kafkajs({ topic: "t", partitionMetadata: metadata(partitions), message: { key, value: null } });

describe("the partition of a key", () => {
  it("is kafkajs's default partitioner's for text keys of every length and alphabet", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 600 }),
        fc.integer({ min: 1, max: 256 }),
        (key, partitions) => {
          expect(partitionOf(key, partitions)).toBe(byKafkajs(key, partitions));
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it("is kafkajs's for byte keys, including lengths 0 to 3 past a multiple of four", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.integer({ min: 1, max: 64 }), (bytes, partitions) => {
        const key = Buffer.from(bytes);
        expect(partitionOf(key, partitions)).toBe(byKafkajs(key, partitions));
      }),
      { numRuns: 2_000 },
    );
  });

  it("is kafkajs's for keys longer than the hash's scratch space, and for correlation ids", () => {
    for (const key of ["x".repeat(400), "é".repeat(400), "€".repeat(341), "𝄞".repeat(300), "corr-0", "", "a2a:task:42"])
      for (const partitions of [1, 6, 24, 1_000]) expect(partitionOf(key, partitions)).toBe(byKafkajs(key, partitions));
  });

  it("hashes as the Java client's Utils.murmur2 (the vectors of Apache Kafka's UtilsTest.testMurmur2)", () => {
    const vectors: [string, number][] = [
      ["21", -973932308],
      ["foobar", -790332482],
      ["a-little-bit-long-string", -985981536],
      ["a-little-bit-longer-string", -1486304829],
      ["lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", -58897971],
      ["abc", 479470107],
    ];
    for (const [key, hash] of vectors) {
      expect(keyHash(key), key).toBe(hash);
      expect(keyHash(Buffer.from(key)), key).toBe(hash);
      expect(partitionOf(key, 6), key).toBe((hash & 0x7fffffff) % 6);
    }
  });
});
