import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Admin } from "kafkajs";
import { createKafka } from "./client.ts";
import { createTopicsAndWait } from "./create-topics.ts";
import { endpointsFromEnv } from "@a2a-ledger/client-config";
import { replicationFor } from "./topics.ts";

const kafka = createKafka({ clientId: "create-topics-test", brokers: endpointsFromEnv().brokers });
let admin: Admin;
const created: string[] = [];

beforeAll(async () => {
  admin = kafka.admin();
  await admin.connect();
});
afterAll(async () => {
  await admin.deleteTopics({ topics: created }).catch(() => undefined);
  await admin.disconnect();
});

describe("creating topics and waiting for their leaders", () => {
  it("resolves once every partition has a leader, and again for topics that exist already", async () => {
    const brokers = (await admin.describeCluster()).brokers.length;
    const topics = [`test.create.${randomUUID().slice(0, 8)}`, `test.create.${randomUUID().slice(0, 8)}`];
    created.push(...topics);
    const specs = topics.map((topic) => ({
      topic,
      numPartitions: 6,
      replicationFactor: replicationFor(brokers).factor,
    }));
    await createTopicsAndWait(admin, specs);
    const { topics: described } = await admin.fetchTopicMetadata({ topics });
    for (const t of described) {
      expect(t.partitions).toHaveLength(6);
      for (const p of t.partitions) expect(p.leader, `${t.name}/${p.partitionId}`).toBeGreaterThanOrEqual(0);
    }
    await expect(createTopicsAndWait(admin, specs)).resolves.toBeUndefined();
  });

  it("rejects a refused creation at once instead of waiting: more replicas than brokers", async () => {
    const brokers = (await admin.describeCluster()).brokers.length;
    const topic = `test.create.${randomUUID().slice(0, 8)}`;
    const started = Date.now();
    await expect(
      createTopicsAndWait(admin, [{ topic, numPartitions: 1, replicationFactor: brokers + 1 }], 30_000),
    ).rejects.toThrow(/replication factor|INVALID_REPLICATION_FACTOR|brokers/i);
    expect(Date.now() - started).toBeLessThan(20_000);
  });
});
