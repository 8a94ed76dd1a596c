/**
 * The fault tests' oracle: what is on a topic, read with clients that share no code with the ledger —
 * a plain kafkajs consumer built here (not this package's `createKafka`, nor any reader of the services
 * or the CLI) and the records decoded by `@kafkajs/confluent-schema-registry` straight from the
 * registry (not the project's `Serde`). `@a2a-ledger/kafka/oracle`, for tests only.
 *
 * One limit to know: in a process that imported `@a2a-ledger/kafka`, kafkajs's read_committed filter is
 * this package's (read-committed.ts replaces it when it loads); the oracle reads topics written without
 * transactions, where no filter takes part.
 */
import { randomUUID } from "node:crypto";
import registryPkg from "@kafkajs/confluent-schema-registry";
import { Kafka, logLevel } from "kafkajs";

const { SchemaRegistry } = registryPkg;

export interface OracleRecord {
  partition: number;
  offset: string;
  key: string | null;
  /** The Avro record name of the value's schema (`TaskDispatched`, …), without its namespace. */
  type: string | null;
  /** The decoded value; null for a record without one. */
  value: Record<string, unknown> | null;
}

export interface OracleRead {
  brokers: string;
  registryUrl: string;
  topic: string;
  /** Read until at least this many records arrived and the topic stayed quiet for `settleMs`. */
  atLeast: number;
  settleMs?: number;
  timeoutMs?: number;
}

/** Every record of the topic from its beginning, decoded, in the order each partition holds them. */
export async function readTopic(read: OracleRead): Promise<OracleRecord[]> {
  const kafka = new Kafka({
    brokers: read.brokers.split(","),
    clientId: `oracle-${randomUUID().slice(0, 8)}`,
    logLevel: logLevel.NOTHING,
  });
  const registry = new SchemaRegistry({ host: read.registryUrl });
  const consumer = kafka.consumer({ groupId: `oracle-${randomUUID()}`, maxWaitTimeInMs: 200 });
  const raw: { partition: number; offset: string; key: Buffer | null; value: Buffer | null }[] = [];
  const settleMs = read.settleMs ?? 1_500;
  await consumer.connect();
  try {
    await consumer.subscribe({ topic: read.topic, fromBeginning: true });
    let last = Date.now();
    void consumer.run({
      eachMessage: async ({ partition, message }) => {
        raw.push({ partition, offset: message.offset, key: message.key, value: message.value });
        last = Date.now();
      },
    });
    const deadline = Date.now() + (read.timeoutMs ?? 60_000);
    while (Date.now() < deadline && !(raw.length >= read.atLeast && Date.now() - last >= settleMs))
      await new Promise((resolve) => setTimeout(resolve, 100));
  } finally {
    await consumer.disconnect();
  }
  const records: OracleRecord[] = [];
  for (const r of raw) {
    const key = r.key?.toString("utf8") ?? null;
    if (r.value === null) {
      records.push({ partition: r.partition, offset: r.offset, key, type: null, value: null });
      continue;
    }
    // Confluent wire format: magic byte 0, the schema id (4 bytes, big-endian), the Avro body.
    const schema = (await registry.getSchema(r.value.readInt32BE(1))) as { name?: string };
    const type = schema.name?.split(".").at(-1) ?? null;
    records.push({
      partition: r.partition,
      offset: r.offset,
      key,
      type,
      value: (await registry.decode(r.value)) as Record<string, unknown>,
    });
  }
  return records;
}

/** Copies of one eventId: how many there are and whether they all carry the same payload. */
export function copiesByEventId(
  records: readonly OracleRecord[],
): Map<string, { copies: number; payloads: Set<string> }> {
  const byId = new Map<string, { copies: number; payloads: Set<string> }>();
  for (const r of records) {
    const id = r.value?.["eventId"];
    if (typeof id !== "string") continue;
    const entry = byId.get(id) ?? { copies: 0, payloads: new Set<string>() };
    entry.copies++;
    entry.payloads.add(
      JSON.stringify(r.value, (_, v: unknown) =>
        typeof v === "bigint" ? v.toString() : Buffer.isBuffer(v) ? v.toString("base64") : v,
      ),
    );
    byId.set(id, entry);
  }
  return byId;
}
