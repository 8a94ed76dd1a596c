/**
 * A partition's state on local disk at a clean stop, so that the next restore of that partition — by
 * this instance or another one sharing the directory — reads the changelog only from where the
 * snapshot left off (`A2A_LEDGER_RECONCILER_STATE_DIR`). Kafka Streams under exactly-once keeps its
 * checkpoint the same way: written at a clean close only, and removed once its store is opened, so a
 * crash (`kill -9`) restores from the compacted changelog — which retention keeps near the live work.
 *
 * A snapshot holds what the changelog held up to `offset`: the states committed by the transactions
 * that ended before it (written after the last commit, never ahead of one), and the stream time. It is
 * taken once: opened, then removed. It is not used when it cannot stand for the changelog's prefix any
 * more: written for another topic or partition, beyond the changelog's end (the topic was created
 * again), below its start, or older than the changelog's `delete.retention.ms`, counted from when its
 * state was last known to match the changelog (the cleaner may since have removed a tombstone written
 * after it, and its state would come back).
 *
 * File: `<dir>/<topic>-<partition>.snapshot`, written to a temporary name and renamed. A header line
 * of JSON, then per correlation: key length (uint32 BE), key (UTF-8), value length, value (the bytes
 * the changelog holds, `decider.serialize`).
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface SnapshotHeader {
  version: 1;
  topic: string;
  partition: number;
  /** The changelog offset the states reflect: everything before it, nothing after. */
  offset: string;
  /** The partition's stream time (retention), if it had one. */
  streamTime: number | null;
  /**
   * Wall clock (ms) when the state was last known to be the changelog's as of `offset` (its restore, its
   * last commit): the snapshot's age counts from here, since another owner's tombstones after `offset`
   * are at most this old.
   */
  asOf: number;
  correlations: number;
}

export interface PartitionSnapshot {
  header: SnapshotHeader;
  states: Map<string, Uint8Array>;
}

const fileOf = (dir: string, topic: string, partition: number) => join(dir, `${topic}-${partition}.snapshot`);

export function writeSnapshot(
  dir: string,
  snapshot: Omit<SnapshotHeader, "version" | "asOf" | "correlations">,
  states: ReadonlyMap<string, Uint8Array>,
  asOf = Date.now(),
): string {
  const header: SnapshotHeader = { version: 1, ...snapshot, asOf, correlations: states.size };
  const chunks: Buffer[] = [Buffer.from(`${JSON.stringify(header)}\n`, "utf8")];
  for (const [key, value] of states) {
    const k = Buffer.from(key, "utf8");
    const lengths = Buffer.alloc(4);
    lengths.writeUInt32BE(k.length);
    const valueLength = Buffer.alloc(4);
    valueLength.writeUInt32BE(value.length);
    chunks.push(lengths, k, valueLength, Buffer.from(value.buffer, value.byteOffset, value.byteLength));
  }
  mkdirSync(dir, { recursive: true });
  const file = fileOf(dir, snapshot.topic, snapshot.partition);
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, Buffer.concat(chunks));
  renameSync(temporary, file);
  return file;
}

/** Why a snapshot read from disk is not used, or undefined when it is (`bounds`: the changelog partition now). */
export function unusable(
  header: SnapshotHeader,
  expected: { topic: string; partition: number },
  bounds: { low: bigint; high: bigint; deleteRetentionMs: number; now: number },
): string | undefined {
  if (header.version !== 1) return `format version ${String(header.version)} is not known`;
  if (header.topic !== expected.topic || header.partition !== expected.partition)
    return `it was written for ${header.topic} partition ${header.partition}`;
  const offset = BigInt(header.offset);
  if (offset > bounds.high) return `its offset ${offset} is beyond the changelog's end ${bounds.high}`;
  if (offset < bounds.low) return `its offset ${offset} is below the changelog's start ${bounds.low}`;
  const age = bounds.now - header.asOf;
  if (age < 0 || age >= bounds.deleteRetentionMs)
    return `it is ${age} ms old, not within the changelog's delete.retention.ms (${bounds.deleteRetentionMs})`;
  return undefined;
}

/**
 * The partition's snapshot, removed from disk as it is taken (undefined when there is none). A file that
 * cannot be read whole is removed and reported through `rejected`.
 */
export function takeSnapshot(
  dir: string,
  topic: string,
  partition: number,
  rejected: (reason: string) => void,
): PartitionSnapshot | undefined {
  const file = fileOf(dir, topic, partition);
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    return undefined;
  }
  rmSync(file, { force: true });
  try {
    const end = bytes.indexOf(0x0a);
    if (end < 0) throw new Error("no header line");
    const header = JSON.parse(bytes.subarray(0, end).toString("utf8")) as SnapshotHeader;
    const states = new Map<string, Uint8Array>();
    let at = end + 1;
    const take = () => {
      if (at + 4 > bytes.length) throw new Error("truncated");
      const length = bytes.readUInt32BE(at);
      at += 4;
      if (at + length > bytes.length) throw new Error("truncated");
      const slice = bytes.subarray(at, at + length);
      at += length;
      return slice;
    };
    while (at < bytes.length) {
      const key = take().toString("utf8");
      states.set(key, new Uint8Array(take()));
    }
    if (states.size !== header.correlations)
      throw new Error(`holds ${states.size} correlations, its header says ${header.correlations}`);
    return { header, states };
  } catch (error) {
    rejected(`${file} cannot be read: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}
