/**
 * The one place that builds kafkajs clients, so that a swap of Kafka library stays local.
 */
// Must come first: it replaces kafkajs's read_committed filter before kafkajs loads (see read-committed.ts).
import "./read-committed.ts";
// Also before kafkajs: a refusal by the broker (TLS, an ACL on a group) surfaces once, not as a retry loop.
import "./final-refusals.ts";
// Also before kafkajs: a batch the log cleaner emptied is read past, not fetched forever (see emptied-batches.ts).
import "./emptied-batches.ts";
import kafkajs from "kafkajs";
import net from "node:net";
import tls from "node:tls";
import { accessFailureOf } from "./access-failure.ts";
import { type ClientConfig, processClientConfig } from "@a2a-ledger/client-config";

export type {
  Admin,
  Batch,
  Consumer,
  IHeaders,
  Kafka,
  KafkaMessage,
  PartitionMetadata,
  Producer,
  RecordMetadata,
  Transaction,
} from "kafkajs";
/** `Partitioners.DefaultPartitioner` is the Java client's murmur2 partitioner; `AssignerProtocol` encodes group assignments. */
export const { AssignerProtocol, CompressionTypes, logLevel, Partitioners } = kafkajs;

export interface KafkaOptions {
  brokers: string;
  clientId: string;
  /** kafkajs log level; warnings and errors by default. */
  logLevel?: kafkajs.logLevel;
  connectionTimeoutMs?: number;
  requestTimeoutMs?: number;
  retries?: number;
  /** Security of the connection (TLS, SASL); this process's KAFKA_CLIENT_CONFIG when not given. */
  client?: ClientConfig;
}

/**
 * kafkajs's `ssl`, `sasl` and socket factory from a client configuration. The secrets stay
 * non-enumerable on the objects kafkajs is handed (it reads them by name), so the socket is opened
 * here: kafkajs's own factory copies the TLS options with Object.assign, which would drop them.
 */
export function connectionSecurity(client: ClientConfig): Pick<kafkajs.KafkaConfig, "ssl" | "sasl" | "socketFactory"> {
  const sasl = client.sasl === undefined ? {} : { sasl: client.sasl as kafkajs.SASLOptions };
  if (client.protocol !== "SSL" && client.protocol !== "SASL_SSL") return sasl;
  const options = client.ssl ?? { rejectUnauthorized: true };
  const socketFactory: kafkajs.ISocketFactory = ({ host, port, onConnect }) => {
    const socket = tls.connect(
      {
        host,
        port,
        ...(net.isIP(host) ? {} : { servername: host }),
        rejectUnauthorized: options.rejectUnauthorized,
        ...(options.ca === undefined ? {} : { ca: options.ca }),
        ...(options.cert === undefined ? {} : { cert: options.cert }),
        ...(options.key === undefined ? {} : { key: options.key }),
        ...(options.pfx === undefined ? {} : { pfx: options.pfx }),
        ...(options.passphrase === undefined ? {} : { passphrase: options.passphrase }),
        ...(options.checkServerIdentity === undefined ? {} : { checkServerIdentity: options.checkServerIdentity }),
      },
      onConnect,
    );
    socket.setKeepAlive(true, 60_000);
    return socket;
  };
  return { ...sasl, ssl: true, socketFactory };
}

// kafkajs 2's default partitioner is the Java-compatible murmur2 one; its notice says so on every producer.
process.env.KAFKAJS_NO_PARTITIONER_WARNING ??= "1";

const levels: Record<string, kafkajs.logLevel> = {
  nothing: kafkajs.logLevel.NOTHING,
  error: kafkajs.logLevel.ERROR,
  warn: kafkajs.logLevel.WARN,
  info: kafkajs.logLevel.INFO,
  debug: kafkajs.logLevel.DEBUG,
};

/** A2A_LEDGER_KAFKA_LOG_LEVEL (nothing, error, warn, info, debug) sets the client log level; warn by default. */
export function kafkaLogLevel(env: NodeJS.ProcessEnv = process.env): kafkajs.logLevel {
  const name = env.A2A_LEDGER_KAFKA_LOG_LEVEL?.trim().toLowerCase();
  if (name === undefined || name === "") return kafkajs.logLevel.WARN;
  const level = levels[name];
  if (level === undefined)
    throw new Error(
      `A2A_LEDGER_KAFKA_LOG_LEVEL=${JSON.stringify(name)}: expected one of ${Object.keys(levels).join(", ")}`,
    );
  return level;
}

/**
 * kafkajs's JSON log lines, less one: the warning that an idempotent producer has bounded retries.
 * The bound is deliberate here (ingest answers 503 and the client retries with the same eventIds; the
 * reconciler aborts and retries the whole transaction), so the warning would only be noise.
 */
const logCreator: kafkajs.logCreator =
  () =>
  ({ namespace, level, label, log }) => {
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
    // A consumer that Kafka refuses (credentials, certificate, ACL) crashes for good instead of restarting in a loop.
    retry: { retries: options.retries ?? 5, restartOnFailure: async (error) => accessFailureOf(error) === undefined },
    ...connectionSecurity(options.client ?? processClientConfig()),
  });
}
