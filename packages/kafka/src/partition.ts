/**
 * The partition of a key: the Java client's default partitioner (toPositive(murmur2(key)) % partitions),
 * which kafkajs's `Partitioners.DefaultPartitioner` also is, so any Kafka client puts a correlation on
 * the same partition. murmur2 runs on 32-bit integers (`Math.imul`): kafkajs computes the same low 32
 * bits through 64-bit `Long` objects, several allocations per four bytes of key, which made the hash a
 * noticeable share of ingest's CPU per request. partition.test.ts holds the two equal.
 */

const seed = 0x9747b28c;
const m = 0x5bd1e995;
/** Keys up to this many UTF-8 bytes are hashed without a buffer of their own. */
const scratch = Buffer.allocUnsafe(1024);

/** Kafka's murmur2 of `data[0, length)`, as the signed 32-bit integer the Java client returns. */
function murmur2(data: Uint8Array, length: number): number {
  let h = seed ^ length;
  const whole = length & ~3;
  for (let i = 0; i < whole; i += 4) {
    let k =
      (data[i] as number) |
      ((data[i + 1] as number) << 8) |
      ((data[i + 2] as number) << 16) |
      ((data[i + 3] as number) << 24);
    k = Math.imul(k, m);
    k ^= k >>> 24;
    k = Math.imul(k, m);
    h = Math.imul(h, m) ^ k;
  }
  // The last one to three bytes, highest first (the Java client's fall-through switch).
  const rest = length & 3;
  if (rest === 3) h ^= (data[whole + 2] as number) << 16;
  if (rest >= 2) h ^= (data[whole + 1] as number) << 8;
  if (rest >= 1) h = Math.imul(h ^ (data[whole] as number), m);
  h ^= h >>> 13;
  h = Math.imul(h, m);
  h ^= h >>> 15;
  return h | 0;
}

/** murmur2 of a key as kafkajs hashes it: a Buffer as it is, anything else as the UTF-8 bytes of its text. */
export function keyHash(key: string | Buffer): number {
  if (Buffer.isBuffer(key)) return murmur2(key, key.length);
  // Three bytes of UTF-8 at most per UTF-16 unit: a key that surely fits is written into the scratch buffer.
  if (key.length * 3 <= scratch.length) return murmur2(scratch, scratch.write(key, 0, "utf8"));
  const data = Buffer.from(key, "utf8");
  return murmur2(data, data.length);
}

export function partitionOf(key: string | Buffer, partitions: number): number {
  return (keyHash(key) & 0x7fffffff) % partitions;
}
