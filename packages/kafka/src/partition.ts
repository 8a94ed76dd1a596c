/**
 * The partition of a key: kafkajs's default partitioner, which is the Java client's murmur2 one
 * (toPositive(murmur2(key)) % partitions), so any Kafka client puts a correlation on the same partition.
 */
import { Partitioners, type PartitionMetadata } from "./client.ts";

const partitioner = Partitioners.DefaultPartitioner();
const metadataCache = new Map<number, PartitionMetadata[]>();

function metadataOf(partitions: number): PartitionMetadata[] {
  let metadata = metadataCache.get(partitions);
  if (metadata === undefined) {
    metadata = Array.from({ length: partitions }, (_, partitionId) => ({
      partitionId,
      leader: 0,
      partitionErrorCode: 0,
      replicas: [0],
      isr: [0],
    }));
    metadataCache.set(partitions, metadata);
  }
  return metadata;
}

export function partitionOf(key: string | Buffer, partitions: number): number {
  return partitioner({ topic: "", partitionMetadata: metadataOf(partitions), message: { key, value: null } });
}
