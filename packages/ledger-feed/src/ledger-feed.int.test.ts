/** The ledger feed against the shared Kafka stack and registry: what it keeps, from where, and waiting for a record. */
import { createKafka, endpointsFromEnv, processClientConfig, type Admin } from "@a2a-ledger/kafka";
import { createTestTopic } from "@a2a-ledger/kafka/testing";
import { Serde } from "@a2a-ledger/schemas/serde";
import { sampleDecision } from "@a2a-ledger/schemas/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isType, LedgerFeed } from "./ledger-feed.ts";

const endpoints = endpointsFromEnv();
const kafka = createKafka({ brokers: endpoints.brokers, clientId: "ledger-feed-test" });
const serde = new Serde(endpoints.registryUrl, undefined, processClientConfig().registry);
let admin: Admin;
const created: string[] = [];

beforeAll(async () => {
  admin = kafka.admin();
  await admin.connect();
  await serde.registerAll();
});
afterAll(async () => {
  await admin.deleteTopics({ topics: created }).catch(() => undefined);
  await admin.disconnect();
});

async function produce(topic: string, correlationIds: string[]): Promise<void> {
  const producer = kafka.producer({ idempotent: true });
  await producer.connect();
  try {
    const messages = await Promise.all(
      correlationIds.map(async (correlationId) => ({
        key: correlationId,
        value: await serde.encode({ ...sampleDecision("TaskIndeterminate"), correlationId }),
      })),
    );
    await producer.send({
      topic,
      acks: -1,
      messages: [...messages, { key: "junk", value: Buffer.from("not a ledger record") }],
    });
  } finally {
    await producer.disconnect();
  }
}

describe("LedgerFeed", () => {
  it("from the beginning keeps every ledger record the filter takes, skips what it cannot decode, and waits for one still to come", async () => {
    const topic = await createTestTopic(admin, "ledger-feed.beginning", 2);
    created.push(topic);
    await produce(topic, ["c-1", "c-2"]);
    const feed = new LedgerFeed({
      brokers: endpoints.brokers,
      registryUrl: endpoints.registryUrl,
      topics: [topic],
      from: "beginning",
      keep: (r) => r.correlationId !== "c-2",
    });
    await feed.start();
    try {
      await feed.waitFor(
        isType("TaskIndeterminate", (d) => d.correlationId === "c-1"),
        30_000,
        "c-1",
      );
      const later = feed.waitFor(
        isType("TaskIndeterminate", (d) => d.correlationId === "c-3"),
        30_000,
        "c-3",
      );
      await produce(topic, ["c-3"]);
      expect((await later).correlationId).toBe("c-3");
      expect(
        feed
          .ofType("TaskIndeterminate")
          .map((d) => d.correlationId)
          .sort(),
      ).toEqual(["c-1", "c-3"]);
    } finally {
      await feed.stop();
    }
  });

  it("from the end keeps only what is written after it started", async () => {
    const topic = await createTestTopic(admin, "ledger-feed.end", 1);
    created.push(topic);
    await produce(topic, ["old"]);
    const feed = new LedgerFeed({
      brokers: endpoints.brokers,
      registryUrl: endpoints.registryUrl,
      topics: [topic],
      from: "end",
    });
    await feed.start();
    try {
      await produce(topic, ["new"]);
      await feed.waitFor(
        isType("TaskIndeterminate", (d) => d.correlationId === "new"),
        30_000,
        "new",
      );
      expect(feed.records.map((r) => r.correlationId)).toEqual(["new"]);
    } finally {
      await feed.stop();
    }
  });

  it("gives up waiting with the name of what it waited for", async () => {
    const topic = await createTestTopic(admin, "ledger-feed.none", 1);
    created.push(topic);
    const feed = new LedgerFeed({
      brokers: endpoints.brokers,
      registryUrl: endpoints.registryUrl,
      topics: [topic],
      from: "beginning",
    });
    await feed.start();
    try {
      await expect(feed.waitFor(() => true, 300, "anything")).rejects.toThrow(
        "the ledger did not show anything within 300 ms",
      );
    } finally {
      await feed.stop();
    }
  });
});
