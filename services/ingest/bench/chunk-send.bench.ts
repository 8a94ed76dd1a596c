/**
 * What one group-committed chunk costs Kafka-side: `npm run bench:chunk -w @a2a-ledger/ingest` (against
 * `npm run infra:up`). A chunk of six records, one per partition of a throwaway six-partition topic, is sent
 * as the sink sends it (`sendAcknowledged`: one send, one produce request per broker) and as it sent it
 * before (`sendByPartition`, one send per partition side by side, which kafkajs serializes per broker for
 * an idempotent producer), by the sink's producer (idempotent) and, in the same run as a contrast, by a
 * producer that is not idempotent (no broker lock, retries 0); and one record to one partition, the cost of
 * a single round trip. ROUNDS (default 2) alternates the producers; SENDS (default 500) per measure. Times
 * are the mean per chunk or send.
 */
import {
  createKafka,
  createTopicsAndWait,
  endpointsFromEnv,
  replicationFor,
  sendAcknowledged,
  sendByPartition,
} from "@a2a-ledger/kafka";
import type { ProducerConfig } from "kafkajs";

process.env.A2A_LEDGER_KAFKA_LOG_LEVEL ??= "nothing";
const rounds = Number(process.env.ROUNDS ?? 2);
const sends = Number(process.env.SENDS ?? 500);
const partitions = 6;
const kafka = createKafka({ brokers: endpointsFromEnv().brokers, clientId: "ingest-chunk-bench" });
const admin = kafka.admin();
await admin.connect();
const topic = `bench-ingest-chunk-${Date.now()}`;
const replication = replicationFor((await admin.describeCluster()).brokers.length);
await createTopicsAndWait(admin, [{ topic, numPartitions: partitions, replicationFactor: replication.factor }]);
const chunk = Array.from({ length: partitions }, (_, p) => ({
  key: `k${p}`,
  value: Buffer.alloc(207, 1),
  partition: p,
}));

const producers: [string, ProducerConfig][] = [
  ["idempotent (the sink's)", { idempotent: true, retry: { retries: 3 } }],
  ["not idempotent, retries 0", { idempotent: false, retry: { retries: 0 } }],
];
const results = new Map<string, { chunk: number[]; byPartition: number[]; one: number[] }>();
try {
  for (let round = 0; round < rounds; round++) {
    for (const [label, config] of producers) {
      const producer = kafka.producer({ ...config, allowAutoTopicCreation: false });
      await producer.connect();
      try {
        for (let i = 0; i < 50; i++) await sendByPartition(producer, topic, chunk, partitions, { parallel: true });
        for (let i = 0; i < 50; i++) await sendAcknowledged(producer, topic, chunk, partitions);
        let started = performance.now();
        for (let i = 0; i < sends; i++) await sendAcknowledged(producer, topic, chunk, partitions);
        const perChunk = (performance.now() - started) / sends;
        started = performance.now();
        for (let i = 0; i < sends; i++) await sendByPartition(producer, topic, chunk, partitions, { parallel: true });
        const perPartition = (performance.now() - started) / sends;
        started = performance.now();
        for (let i = 0; i < sends; i++)
          await producer.send({ topic, acks: -1, messages: [chunk[0] as (typeof chunk)[0]] });
        const perOne = (performance.now() - started) / sends;
        const entry = results.get(label) ?? { chunk: [], byPartition: [], one: [] };
        entry.chunk.push(perChunk);
        entry.byPartition.push(perPartition);
        entry.one.push(perOne);
        results.set(label, entry);
      } finally {
        await producer.disconnect();
      }
    }
  }
} finally {
  await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
  await admin.disconnect();
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
console.log(`${rounds} rounds of ${sends} sends, ${partitions} partitions, replication ${replication.factor}`);
console.log(
  "| producer | chunk of six partitions in one send, ms | the same, one send per partition, ms | one record to one partition, ms | one send / per partition | one send / one record |",
);
console.log("|---|---:|---:|---:|---:|---:|");
for (const [label, { chunk: c, byPartition: p, one }] of results)
  console.log(
    `| ${label} | ${mean(c).toFixed(2)} | ${mean(p).toFixed(2)} | ${mean(one).toFixed(2)} | ${(mean(c) / mean(p)).toFixed(2)} | ${(mean(c) / mean(one)).toFixed(1)} |`,
  );
