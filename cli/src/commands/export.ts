/**
 * a2a-ledger export: the observations topic (or a file) to an Avro object container file with the
 * writer schema embedded, or to NDJSON in the ingest JSON shape. `replay --input` on the file decides what
 * `replay --kafka --order event-time` decides (a file holds no batch records, so it folds merged by event
 * time). A partial export (`--since`, `--until`, `--correlation`) reads the source twice, as a partial
 * replay does: a first pass names the correlations in scope and the shared ones (a card fetch, a probe, a
 * TaskNotFound), the second writes those whole, so a lost task outside the window that revoked a worker
 * is in the file. Streams record by record, so memory stays flat but for the named correlations' ids.
 */
import { createWriteStream } from "node:fs";
import { once } from "node:events";
import { rename, rm } from "node:fs/promises";
import { resolve } from "node:path";
import type { Observation } from "@a2a-ledger/schemas";
import type { Command } from "../command.ts";
import { parseOptions } from "../parse-options.ts";
import { exitCodes, UsageError, type Io } from "../io.ts";
import { checkWritable } from "../output-file.ts";
import { clusterFromEnv, type Cluster } from "../kafka/cluster.ts";
import { type OcfCodec, OcfWriter } from "../ocf/ocf-writer.ts";
import { progressBar } from "../progress.ts";
import { isPartial, observationInScope, scopeFromOptions } from "../replay/replay-scope.ts";
import { openSource } from "../sources/open-source.ts";
import { asCliError, countPass } from "./replay.ts";

const usage = `usage: a2a-ledger export --output FILE (--kafka | --input FILE) [--format avro|ndjson]
                         [--since TIME] [--until TIME] [--correlation ID] [--only-scope] [--codec deflate|null]
  --output       the file to write: FILE.avro (Avro object container, writer schema embedded) or
                 FILE.ndjson (ingest JSON, one observation per line); --format overrides the extension
  --kafka        export the observations topic (all partitions, read_committed, merged by event
                 time as \`replay --kafka --order event-time\` reads it; KAFKA_BROKERS,
                 SCHEMA_REGISTRY_URL, A2A_LEDGER_TOPIC_SUFFIX; --topic NAME)
  --input        export a file instead (converts NDJSON to Avro and back)
  --since, --until, --correlation
                 only observations with since <= occurredAt < until, of one correlation; the
                 correlations in that scope and those with a card fetch, a probe or a TaskNotFound are
                 written whole (two reads of the source), so that \`replay --input FILE\` with the same
                 scope decides what \`replay --kafka --order event-time\` decides
  --only-scope   leave those out: exactly the observations in scope
  --codec        Avro block compression (default deflate)
exit codes: 0 ok, 2 bad usage or a malformed input, 3 Kafka or the registry cannot be reached`;

function options(args: string[]) {
  return parseOptions(
    args,
    {
      output: { type: "string" },
      kafka: { type: "boolean", default: false },
      input: { type: "string" },
      topic: { type: "string" },
      format: { type: "string" },
      "input-format": { type: "string" },
      since: { type: "string" },
      until: { type: "string" },
      correlation: { type: "string" },
      "only-scope": { type: "boolean", default: false },
      codec: { type: "string", default: "deflate" },
      help: { type: "boolean", default: false },
    },
    usage,
  );
}

interface ObservationWriter {
  write(o: Observation): Promise<void>;
  close(): Promise<void>;
}

function ndjsonWriter(path: string): ObservationWriter {
  const file = createWriteStream(path);
  let failure: Error | undefined;
  file.on("error", (e) => (failure ??= e));
  return {
    async write(o) {
      if (failure) throw failure;
      if (!file.write(`${JSON.stringify(o)}\n`)) await Promise.race([once(file, "drain"), once(file, "close")]);
      if (failure) throw failure;
    },
    async close() {
      if (!file.closed) {
        const closed = once(file, "close");
        file.end();
        await closed;
      }
      if (failure) throw failure;
    },
  };
}

function formatOf(output: string, format: string | undefined): "avro" | "ndjson" {
  const f =
    format ?? (/\.(avro|ocf)$/i.test(output) ? "avro" : /\.(ndjson|jsonl)$/i.test(output) ? "ndjson" : undefined);
  if (f === "avro" || f === "ndjson") return f;
  throw new UsageError(
    format === undefined
      ? `cannot tell the format of ${output} from its name: use .avro or .ndjson, or --format avro|ndjson`
      : `--format ${format}: expected avro or ndjson`,
  );
}

async function run(args: string[], io: Io): Promise<number> {
  const o = options(args);
  if (o.help) {
    io.stdout(`${usage}\n`);
    return exitCodes.ok;
  }
  if (o.output === undefined) throw new UsageError(`--output is required\n${usage}`);
  const format = formatOf(o.output, o.format);
  if (o.codec !== "deflate" && o.codec !== "null") throw new UsageError(`--codec ${o.codec}: expected deflate or null`);
  const scope = scopeFromOptions(o);
  const output = resolve(io.cwd, o.output);
  checkWritable(output, o.output);
  let cluster: Cluster | undefined;
  const partial = `${output}.partial`;
  try {
    const sourceOptions = { input: o.input, kafka: o.kafka, topic: o.topic, format: o["input-format"] };
    const connect = () => (cluster ??= clusterFromEnv("a2a-ledger-export"));
    let opened = await openSource(sourceOptions, io, connect);
    let whole: ReadonlySet<string> | undefined;
    if (isPartial(scope) && !o["only-scope"]) {
      const counts = await countPass(opened.source, scope, io);
      whole = new Set([...counts.scoped, ...counts.shared]);
      opened = await openSource(sourceOptions, io, connect);
    }
    // Written under a temporary name and renamed at the end: a failed export leaves no file that looks complete.
    const writer: ObservationWriter =
      format === "avro" ? new OcfWriter(partial, o.codec as OcfCodec) : ndjsonWriter(partial);
    const bar = progressBar(io, "export", opened.source.unit);
    let written = 0;
    let read = 0;
    try {
      for await (const chunk of opened.source.chunks()) {
        for (const obs of chunk.observations) {
          if (observationInScope(scope, obs) || whole?.has(obs.correlationId) === true) {
            await writer.write(obs);
            written++;
          }
        }
        read += chunk.observations.length;
        bar.update(chunk.progress, opened.source.total, read);
      }
      await writer.close();
    } catch (e) {
      await writer.close().catch(() => undefined);
      await rm(partial, { force: true });
      throw e;
    } finally {
      bar.stop();
    }
    await rename(partial, output);
    if (opened.skipped.length > 0)
      io.stderr(
        `a2a-ledger export: ${opened.skipped.length} record(s) of ${opened.source.label} are not observations and were not exported (first: ${opened.skipped[0]?.where}: ${opened.skipped[0]?.reason})\n`,
      );
    io.stderr(
      `exported ${written.toLocaleString("en-US")} of ${read.toLocaleString("en-US")} observations from ${opened.source.label} to ${o.output} (${format})\n`,
    );
    return exitCodes.ok;
  } catch (e) {
    throw asCliError(e);
  }
}

export const command: Command = {
  name: "export",
  summary: "write the observations topic (or a window, or one correlation) to an Avro or NDJSON file",
  usage,
  run,
};
