/**
 * The one place that builds kafkajs clients, so that a swap of Kafka library stays local.
 */
// Must come first: it replaces kafkajs's read_committed filter before kafkajs loads (see read-committed.ts).
import "./read-committed.ts";
import kafkajs from "kafkajs";

export type { Admin, Batch, Consumer, IHeaders, Kafka, KafkaMessage, PartitionMetadata, Producer, RecordMetadata, Transaction } from "kafkajs";
/** `Partitioners.DefaultPartitioner` is the Java client's murmur2 partitioner. */
export const { CompressionTypes, logLevel, Partitioners } = kafkajs;

export interface KafkaOptions {
  brokers: string;
  clientId: string;
  /** kafkajs log level; warnings and errors by default. */
  logLevel?: kafkajs.logLevel;
  connectionTimeoutMs?: number;
  requestTimeoutMs?: number;
  retries?: number;
}

// kafkajs 2's default partitioner is the Java-compatible murmur2 one; its notice says so on every producer.
process.env.KAFKAJS_NO_PARTITIONER_WARNING ??= "1";

const levels: Record<string, kafkajs.logLevel> = { nothing: kafkajs.logLevel.NOTHING, error: kafkajs.logLevel.ERROR, warn: kafkajs.logLevel.WARN, info: kafkajs.logLevel.INFO, debug: kafkajs.logLevel.DEBUG };

/** A2A_LEDGER_KAFKA_LOG_LEVEL (nothing, error, warn, info, debug) sets the client log level; warn by default. */
export function kafkaLogLevel(env: NodeJS.ProcessEnv = process.env): kafkajs.logLevel {
  const name = env.A2A_LEDGER_KAFKA_LOG_LEVEL?.trim().toLowerCase();
  if (name === undefined || name === "") return kafkajs.logLevel.WARN;
  const level = levels[name];
  if (level === undefined) throw new Error(`A2A_LEDGER_KAFKA_LOG_LEVEL=${JSON.stringify(name)}: expected one of ${Object.keys(levels).join(", ")}`);
  return level;
}

/**
 * kafkajs's JSON log lines, less one: the warning that an idempotent producer has bounded retries.
 * The bound is deliberate here (ingest answers 503 and the client retries with the same eventIds; the
 * reconciler aborts and retries the whole transaction), so the warning would only be noise.
 */
const logCreator: kafkajs.logCreator = () => ({ namespace, level, label, log }) => {
  if (log.message.startsWith("Limiting retries for the idempotent producer")) return;
  const line = JSON.stringify({ level: label, logger: "kafkajs", namespace, ...log });
  if (level <= kafkajs.logLevel.ERROR) console.error(line);
  else console.log(line);
};

export function createKafka(options: KafkaOptions): kafkajs.Kafka {
  return new kafkajs.Kafka({
    logCreator,
    clientId: options.clientId,
    brokers: options.brokers.split(",").map((b) => b.trim()),
    logLevel: options.logLevel ?? kafkaLogLevel(),
    connectionTimeout: options.connectionTimeoutMs ?? 3_000,
    requestTimeout: options.requestTimeoutMs ?? 30_000,
    retry: { retries: options.retries ?? 5 },
  });
}
