/** `sendByPartition` on the project's cluster (the unit tests, against a recording sender: partition-send.test.ts). */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKafka, type Admin } from "./client.ts";
import { endpointsFromEnv } from "@a2a-ledger/client-config";
import { partitionOf } from "./partition.ts";
import { sendAcknowledged, sendByPartition } from "./partition-send.ts";
import { createTestTopic, readMessages } from "./testing.ts";

describe("sending by partition to the project's cluster", () => {
  const kafka = createKafka({ brokers: endpointsFromEnv().brokers, clientId: "partition-send-test" });
  let admin: Admin;
  beforeAll(async () => {
    admin = kafka.admin();
    await admin.connect();
  });
  afterAll(async () => {
    await admin.disconnect();
  });

  it("lands every record once, on its key's partition, through a plain producer (by partition and in one send) and a transactional one", async () => {
    const topic = await createTestTopic(admin, "partition-send", 6);
    try {
      const plain = kafka.producer({ idempotent: true });
      await plain.connect();
      await sendByPartition(
        plain,
        topic,
        Array.from({ length: 60 }, (_, i) => ({ key: `p-${i}`, value: `p-${i}` })),
        6,
        { parallel: true },
      );
      await sendAcknowledged(
        plain,
        topic,
        Array.from({ length: 60 }, (_, i) => ({ key: `a-${i}`, value: `a-${i}` })),
        6,
      );
      await plain.disconnect();
      const transactional = kafka.producer({
        idempotent: true,
        transactionalId: `${topic}-tx`,
        maxInFlightRequests: 1,
      });
      await transactional.connect();
      const tx = await transactional.transaction();
      await sendByPartition(
        tx,
        topic,
        Array.from({ length: 60 }, (_, i) => ({ key: `t-${i}`, value: `t-${i}` })),
        6,
        { parallel: false },
      );
      await tx.commit();
      await transactional.disconnect();
      const read = await readMessages(kafka, topic, 180, 30_000);
      expect(read).toHaveLength(180);
      expect(new Set(read.map((m) => m.key)).size).toBe(180);
      for (const m of read) expect(m.partition, m.key ?? "").toBe(partitionOf(m.key as string, 6));
    } finally {
      await admin.deleteTopics({ topics: [topic] });
    }
  });
});
