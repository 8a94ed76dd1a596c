/**
 * The source a replay or an export names: `--input FILE` (NDJSON, or an Avro object container file
 * recognised by its magic bytes) or `--kafka` (the observations topic).
 */
import { statSync } from "node:fs";
import { resolve } from "node:path";
import type { Cluster } from "../kafka/cluster.ts";
import { type SkippedRecord, topicSource } from "../kafka/observation-topic.ts";
import { recordedOrderSource } from "../kafka/recorded-order.ts";
import { UsageError, type Io } from "../io.ts";
import { isOcfFile, ocfSource } from "../ocf/ocf-reader.ts";
import { ndjsonSource } from "./ndjson.ts";
import type { ObservationSource } from "./observation-source.ts";

export interface SourceOptions {
  input: string | undefined;
  kafka: boolean;
  topic: string | undefined;
  format: string | undefined;
  /** Read the ledger's observations topic in the order the reconciler read it, when its batch records allow. */
  recordedOrder?: boolean;
}

/** The order a source hands its observations over in, and why when it is not the one asked for. */
export type SourceOrder = { kind: "recorded"; batches: number } | { kind: "event-time"; reason: string | null };

export interface OpenedSource {
  source: ObservationSource;
  /** Records of a topic that are not observations (filled while reading). */
  skipped: SkippedRecord[];
  cluster: Cluster | undefined;
  order: SourceOrder;
}

export async function openSource(o: SourceOptions, io: Io, cluster: () => Cluster): Promise<OpenedSource> {
  if ((o.input === undefined) === !o.kafka)
    throw new UsageError("name one source: --input FILE (NDJSON or Avro) or --kafka (the observations topic)");
  if (o.input !== undefined) {
    const path = resolve(io.cwd, o.input);
    let size: number;
    try {
      const stat = statSync(path);
      if (!stat.isFile()) throw new UsageError(`not a file: ${o.input}`);
      size = stat.size;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") throw new UsageError(`no such file: ${o.input}`);
      throw e;
    }
    const format = o.format ?? ((await isOcfFile(path)) ? "avro" : "ndjson");
    const order: SourceOrder = {
      kind: "event-time",
      reason: o.recordedOrder === true ? "a file holds no batch records" : null,
    };
    if (format === "avro") return { source: ocfSource(path, size, o.input), skipped: [], cluster: undefined, order };
    if (format === "ndjson") return { source: ndjsonSource(path, o.input), skipped: [], cluster: undefined, order };
    throw new UsageError(`--format ${format}: expected ndjson or avro`);
  }
  const c = cluster();
  const skipped: SkippedRecord[] = [];
  const topic = o.topic ?? c.topics.observations;
  let reason: string | null = null;
  if (o.recordedOrder === true) {
    if (topic !== c.topics.observations) reason = `batch records describe ${c.topics.observations}, not ${topic}`;
    else {
      const recorded = await recordedOrderSource(c.kafka, c.serde, topic, c.topics.batches, skipped);
      if ("source" in recorded)
        return { source: recorded.source, skipped, cluster: c, order: { kind: "recorded", batches: recorded.batches } };
      reason = recorded.unavailable;
    }
  }
  return {
    source: topicSource(c.kafka, c.serde, topic, skipped),
    skipped,
    cluster: c,
    order: { kind: "event-time", reason },
  };
}
