import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKafka, type Admin } from "./client.ts";
import { endpointsFromEnv } from "@a2a-ledger/client-config";
import { createTestTopic } from "./testing.ts";
import {
  effectiveConfigs,
  ensureTopics,
  replicationFor,
  TopicConflictError,
  type TopicSpec,
  topics,
  tuneTopic,
} from "./topics.ts";

const kafka = createKafka({ brokers: endpointsFromEnv().brokers, clientId: "topics-test" });
let admin: Admin;

beforeAll(async () => {
  admin = kafka.admin();
  await admin.connect();
});
afterAll(async () => {
  await admin.disconnect();
});

describe("replication follows the cluster", () => {
  it("is min(3, brokers), with two replicas in sync at three and never an unclean leader", () => {
    expect(replicationFor(1)).toEqual({
      factor: 1,
      configs: { "min.insync.replicas": "1", "unclean.leader.election.enable": "false" },
    });
    expect(replicationFor(2).factor).toBe(2);
    expect(replicationFor(2).configs["min.insync.replicas"]).toBe("1");
    expect(replicationFor(3)).toEqual({
      factor: 3,
      configs: { "min.insync.replicas": "2", "unclean.leader.election.enable": "false" },
    });
    expect(replicationFor(7).factor).toBe(3);
  });

  it("lets a topic's own configs win over the replication's", () => {
    const spec: TopicSpec = {
      name: "t",
      partitions: 1,
      configs: { "cleanup.policy": "compact", "min.insync.replicas": "3" },
      purpose: "test",
    };
    expect(effectiveConfigs(spec, 3)).toEqual({
      "cleanup.policy": "compact",
      "min.insync.replicas": "3",
      "unclean.leader.election.enable": "false",
    });
  });
});

describe("ensureTopics on the project's broker", () => {
  it("is idempotent: a second run creates nothing", async () => {
    await ensureTopics(admin);
    const again = await ensureTopics(admin);
    expect(again.created).toEqual([]);
    expect(again.existing.sort()).toEqual(topics.map((t) => t.name).sort());
  });

  it("leaves every topic with the partitions, replication and configs stated in code", async () => {
    const brokers = (await admin.describeCluster()).brokers.length;
    const metadata = await admin.fetchTopicMetadata({ topics: topics.map((t) => t.name) });
    const described = await admin.describeConfigs({
      includeSynonyms: false,
      resources: topics.map((t) => ({ type: 2, name: t.name, configNames: Object.keys(effectiveConfigs(t, brokers)) })),
    });
    for (const spec of topics) {
      const partitions = metadata.topics.find((t) => t.name === spec.name)?.partitions;
      expect(partitions, spec.name).toHaveLength(spec.partitions);
      for (const p of partitions ?? [])
        expect(p.replicas, `${spec.name} ${p.partitionId}`).toHaveLength(Math.min(3, brokers));
      const entries = described.resources.find((r) => r.resourceName === spec.name)?.configEntries ?? [];
      expect(entries.find((e) => e.configName === "unclean.leader.election.enable")?.configValue, spec.name).toBe(
        "false",
      );
      expect(entries.find((e) => e.configName === "min.insync.replicas")?.configValue, spec.name).toBe(
        brokers >= 3 ? "2" : "1",
      );
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

  it("creates a topic with its tuning, and takes an operator's later change of it for no conflict", async () => {
    const name = `tuned-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;
    const spec: TopicSpec = {
      name,
      partitions: 1,
      configs: { "cleanup.policy": "compact" },
      tuning: { "segment.ms": "3600000" },
      purpose: "test",
    };
    const segmentMs = async () =>
      (
        await admin.describeConfigs({
          includeSynonyms: false,
          resources: [{ type: 2, name, configNames: ["segment.ms"] }],
        })
      ).resources[0]?.configEntries.find((e) => e.configName === "segment.ms")?.configValue;
    try {
      expect((await ensureTopics(admin, [spec])).created).toEqual([name]);
      expect(await segmentMs()).toBe("3600000");
      await tuneTopic(admin, spec, { "segment.ms": "600000" });
      expect((await ensureTopics(admin, [spec])).existing).toEqual([name]);
      expect(await segmentMs()).toBe("600000");
    } finally {
      await admin.deleteTopics({ topics: [name] });
    }
  });

  it("reports an existing topic that may elect an unclean leader, and changes nothing", async () => {
    const name = await createTestTopic(admin, "unclean", 1, { "unclean.leader.election.enable": "true" });
    try {
      const error = await ensureTopics(admin, [{ name, partitions: 1, configs: {}, purpose: "test" }]).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(TopicConflictError);
      expect((error as TopicConflictError).conflicts).toEqual([
        { topic: name, setting: "unclean.leader.election.enable", expected: "false", actual: "true" },
      ]);
    } finally {
      await admin.deleteTopics({ topics: [name] });
    }
  });
});
