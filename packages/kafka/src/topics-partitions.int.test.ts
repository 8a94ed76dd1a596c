import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKafka, type Admin } from "./client.ts";
import { endpointsFromEnv } from "./index.ts";
import { installedPartitions, PartitionDisagreementError, partitionCounts } from "./partition-count.ts";
import {
  correlationKeyedTopics,
  ensureTopics,
  suffixedTopicNames,
  TopicConflictError,
  type TopicNames,
  topicSpecs,
} from "./topics.ts";

const kafka = createKafka({ brokers: endpointsFromEnv().brokers, clientId: "topics-partitions-test" });
let admin: Admin;
const created: string[] = [];

beforeAll(async () => {
  admin = kafka.admin();
  await admin.connect();
});
afterAll(async () => {
  const present = new Set(await admin.listTopics());
  const leftover = created.filter((t) => present.has(t));
  if (leftover.length > 0) await admin.deleteTopics({ topics: leftover });
  await admin.disconnect();
});

function names(): TopicNames {
  const topics = suffixedTopicNames(`partitions-${randomUUID().slice(0, 8)}`);
  created.push(...Object.values(topics));
  return topics;
}

async function countsOf(topics: readonly string[]): Promise<Record<string, number>> {
  return Object.fromEntries((await partitionCounts(admin, topics)).map((c) => [c.topic, c.partitions]));
}

describe("the correlation-keyed topics' partition count is chosen when they are created", () => {
  it("creates them with the count asked for and the other topics with one partition", async () => {
    const topics = names();
    const result = await ensureTopics(admin, topicSpecs(topics, 24));
    expect(result.correlationPartitions).toBe(24);
    const counts = await countsOf(Object.values(topics));
    for (const name of Object.values(topics))
      expect(counts[name], name).toBe(correlationKeyedTopics(topics).includes(name) ? 24 : 1);
    expect(await installedPartitions(admin, correlationKeyedTopics(topics))).toBe(24);
  });

  it("accepts existing topics' count as the installed one, and creates a missing correlation-keyed topic with it", async () => {
    const topics = names();
    const withoutCommands = topicSpecs(topics, 24).filter((s) => s.name !== topics.commands);
    await ensureTopics(admin, withoutCommands);
    // Every broker's metadata lists them before the next start looks (a three-node cluster answers
    // listTopics from any broker, which may not have learned of a topic created a moment ago).
    for (let i = 0; i < 100; i++) {
      const listed = new Set(await admin.listTopics());
      if (withoutCommands.every((spec) => listed.has(spec.name))) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // A start without the setting (6) or with another one (48) works against topics created with 24.
    const again = await ensureTopics(admin, topicSpecs(topics));
    expect(again.created).toEqual([topics.commands]);
    expect(again.correlationPartitions).toBe(24);
    expect((await countsOf([topics.commands]))[topics.commands]).toBe(24);
    const other = await ensureTopics(admin, topicSpecs(topics, 48));
    expect(other.created).toEqual([]);
    expect(other.correlationPartitions).toBe(24);
  });

  it("refuses correlation-keyed topics that disagree with each other, naming each with its count, and creates nothing", async () => {
    const topics = names();
    await ensureTopics(
      admin,
      topicSpecs(topics, 24).filter((s) => s.name === topics.observations || s.name === topics.changelog),
    );
    await ensureTopics(
      admin,
      topicSpecs(topics, 6).filter((s) => s.name === topics.decisions),
    );
    const error = await ensureTopics(admin, topicSpecs(topics)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PartitionDisagreementError);
    const message = (error as Error).message;
    expect(message).toContain(`${topics.observations}: 24 partitions`);
    expect(message).toContain(`${topics.decisions}: 6 partitions`);
    expect(message).toContain(`${topics.changelog}: 24 partitions`);
    const present = new Set(await admin.listTopics());
    expect(present.has(topics.commands)).toBe(false);
    expect(present.has(topics.capabilities)).toBe(false);
    // Readers refuse them too.
    await ensureTopics(
      admin,
      topicSpecs(topics, 24).filter((s) => s.name === topics.commands),
    );
    await expect(installedPartitions(admin, correlationKeyedTopics(topics))).rejects.toThrow(
      `${topics.decisions}: 6 partitions`,
    );
  });

  it("still holds a single-partition topic to its count", async () => {
    const topics = names();
    const capabilities = topicSpecs(topics).filter((s) => s.name === topics.capabilities);
    await ensureTopics(
      admin,
      capabilities.map((s) => ({ ...s, partitions: 2 })),
    );
    const error = await ensureTopics(admin, capabilities).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TopicConflictError);
    expect((error as TopicConflictError).conflicts).toEqual([
      { topic: topics.capabilities, setting: "partitions", expected: "1", actual: "2" },
    ]);
  });
});

describe("a reader of the partition count", () => {
  it("names the topics that do not exist", async () => {
    const topics = names();
    await ensureTopics(
      admin,
      topicSpecs(topics, 24).filter((s) => s.name === topics.observations),
    );
    await expect(installedPartitions(admin, correlationKeyedTopics(topics))).rejects.toThrow(
      `${topics.decisions}, ${topics.commands}, ${topics.changelog} do not exist`,
    );
  });
});
