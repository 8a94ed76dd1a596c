import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKafka, type Admin } from "./client.ts";
import { endpointsFromEnv } from "./endpoints.ts";
import { createTestTopic } from "./testing.ts";
import { ensureTopics, TopicConflictError, type TopicSpec, topics } from "./topics.ts";

const kafka = createKafka({ brokers: endpointsFromEnv().brokers, clientId: "topics-test" });
let admin: Admin;

beforeAll(async () => {
  admin = kafka.admin();
  await admin.connect();
});
afterAll(async () => {
  await admin.disconnect();
});

describe("ensureTopics on the project's broker", () => {
  it("is idempotent: a second run creates nothing", async () => {
    await ensureTopics(admin);
    const again = await ensureTopics(admin);
    expect(again.created).toEqual([]);
    expect(again.existing.sort()).toEqual(topics.map((t) => t.name).sort());
  });

  it("leaves every topic with the partitions and configs stated in code", async () => {
    const metadata = await admin.fetchTopicMetadata({ topics: topics.map((t) => t.name) });
    const described = await admin.describeConfigs({
      includeSynonyms: false,
      resources: topics.map((t) => ({ type: 2, name: t.name, configNames: Object.keys(t.configs) })),
    });
    for (const spec of topics) {
      expect(metadata.topics.find((t) => t.name === spec.name)?.partitions, spec.name).toHaveLength(spec.partitions);
      const entries = described.resources.find((r) => r.resourceName === spec.name)?.configEntries ?? [];
      for (const [key, value] of Object.entries(spec.configs)) {
        expect(entries.find((e) => e.configName === key)?.configValue, `${spec.name} ${key}`).toBe(value);
      }
    }
    expect(topics.find((t) => t.name === "a2a.capabilities.v1")?.configs["cleanup.policy"]).toBe("compact");
    expect(topics.find((t) => t.name === "a2a.reconciler.changelog.v1")?.configs["cleanup.policy"]).toBe("compact");
  });

  it("fails with every conflict named when an existing topic disagrees with the code, and changes nothing", async () => {
    const name = await createTestTopic(admin, "conflict", 2, { "cleanup.policy": "delete" });
    const missing = `${name}.never-created`;
    const specs: TopicSpec[] = [
      { name, partitions: 3, configs: { "cleanup.policy": "compact" }, purpose: "test" },
      { name: missing, partitions: 1, configs: {}, purpose: "test" },
    ];
    try {
      const error = await ensureTopics(admin, specs).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TopicConflictError);
      expect((error as TopicConflictError).conflicts).toEqual([
        { topic: name, setting: "partitions", expected: "3", actual: "2" },
        { topic: name, setting: "cleanup.policy", expected: "compact", actual: "delete" },
      ]);
      expect((error as Error).message).toMatch(/partitions is 2, expected 3/);
      expect(await admin.listTopics()).not.toContain(missing);
    } finally {
      await admin.deleteTopics({ topics: [name] });
    }
  });
});
