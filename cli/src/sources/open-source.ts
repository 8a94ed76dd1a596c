/**
 * The source a replay or an export names: `--input FILE` (NDJSON, or an Avro object container file
 * recognised by its magic bytes) or `--kafka` (the observations topic).
 */
import { statSync } from "node:fs";
import { resolve } from "node:path";
import type { Cluster } from "../kafka/cluster.ts";
import { type SkippedRecord, topicSource } from "../kafka/observation-topic.ts";
import { UsageError, type Io } from "../io.ts";
import { isOcfFile, ocfSource } from "../ocf/ocf-reader.ts";
import { ndjsonSource } from "./ndjson.ts";
import type { ObservationSource } from "./observation-source.ts";

export interface SourceOptions {
  input: string | undefined;
  kafka: boolean;
  topic: string | undefined;
  format: string | undefined;
}

export interface OpenedSource {
  source: ObservationSource;
  /** Records of a topic that are not observations (filled while reading). */
  skipped: SkippedRecord[];
  cluster: Cluster | undefined;
}

export async function openSource(o: SourceOptions, io: Io, cluster: () => Cluster): Promise<OpenedSource> {
  if ((o.input === undefined) === !o.kafka) throw new UsageError("name one source: --input FILE (NDJSON or Avro) or --kafka (the observations topic)");
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
    if (format === "avro") return { source: ocfSource(path, size, o.input), skipped: [], cluster: undefined };
    if (format === "ndjson") return { source: ndjsonSource(path, o.input), skipped: [], cluster: undefined };
    throw new UsageError(`--format ${format}: expected ndjson or avro`);
  }
  const c = cluster();
  const skipped: SkippedRecord[] = [];
  return { source: topicSource(c.kafka, c.serde, o.topic ?? c.topics.observations, skipped), skipped, cluster: c };
}

