/**
 * Long-lived correlations on Kafka: a correlation of 100,000 events (retries, streamed artifacts, polls
 * from three observers, violations) and a worker whose card is fetched 10,000 times keep every changelog
 * record under 100 KB, and the partition keeps flowing.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cardHash, lifecycleExtensionUri } from "@a2a-ledger/core";
import type { Observation } from "@a2a-ledger/schemas";
import {
  kafkaSuite,
  fixture,
  parseLines,
  readAll,
  produce,
  startInProcess,
  waitForGroupAtEnd,
} from "../test/harness.ts";

const { admin, fixtures, running } = kafkaSuite({ beforeAll, afterAll });

const observers = ["orchestrator", "proxy", "worker"];
const media = Array.from({ length: 40 }, (_, i) => (i % 4 === 0 ? "text/plain" : `application/x-format-${i}`));

function card(version: number) {
  return {
    name: "refetched",
    version: `1.${version}`,
    provider: { organization: "Acme" },
    capabilities: {
      extensions: [
        {
          uri: lifecycleExtensionUri,
          params: { states: ["submitted", "working", "input-required", "completed"], taskStore: "ephemeral" },
        },
      ],
    },
    defaultOutputModes: ["text/plain"],
    skills: [{ id: "summarize", outputModes: ["text/plain"] }],
  };
}

/** The long correlation: a new attempt every 1,000 events, streamed artifacts, states from three observers. */
function longCorrelation(n: number, start: number): string[] {
  const lines: string[] = [];
  let t = start;
  const at = () => (t += 5);
  let attempt = 0;
  let task = "";
  for (let i = 0; lines.length < n; i++) {
    const base = {
      eventId: randomUUID(),
      correlationId: "long-lived",
      occurredAt: at(),
      observer: observers[i % 3],
      workerId: "w-long",
    };
    if (i % 1_000 === 0) {
      attempt++;
      task = `task-${attempt}-${randomUUID()}`;
      lines.push(
        JSON.stringify({
          ...base,
          type: "TaskDispatched",
          skillId: "summarize",
          messageId: `m-${attempt}`,
          acceptedOutputModes: ["text/plain"],
          attempt,
        }),
      );
    } else if (i % 10 === 0) {
      const chunk = Math.floor(i / 10) % 5;
      lines.push(
        JSON.stringify({
          ...base,
          type: "ArtifactEmitted",
          serverTaskId: task,
          artifactId: `art-${Math.floor(i / 50)}`,
          name: null,
          parts: [{ kind: "TEXT", mediaType: media[Math.floor(i / 10) % media.length], sizeBytes: 100 }],
          append: chunk > 0,
          lastChunk: chunk === 4,
        }),
      );
    } else if (i % 997 === 0) {
      lines.push(
        JSON.stringify({
          ...base,
          type: "TaskNotFoundObserved",
          serverTaskId: `gone-${i}`,
          method: "GetTask",
          errorCode: "-32001",
        }),
      );
    } else {
      lines.push(
        JSON.stringify({
          ...base,
          type: "TaskStateObserved",
          serverTaskId: task,
          contextId: "ctx-long",
          state: i % 2 === 0 ? "working" : "TASK_STATE_INPUT_REQUIRED",
          via: "get",
        }),
      );
    }
  }
  return lines;
}

/** 10,000 fetches of one worker's card; it changes every 100 fetches and each change is probed. */
function refetches(n: number, start: number): string[] {
  const lines: string[] = [];
  let t = start;
  for (let i = 0; i < n; i++) {
    const c = card(Math.floor(i / 100));
    const base = { correlationId: "probe-w-refetch", observer: "dispatcher", workerId: "w-refetch" };
    lines.push(
      JSON.stringify({
        ...base,
        type: "AgentCardObserved",
        eventId: randomUUID(),
        occurredAt: (t += 7),
        cardUrl: "http://127.0.0.1:1/.well-known/agent-card.json",
        card: c,
        cacheMaxAgeSeconds: 60,
        etag: `W/"${i}"`,
      }),
    );
    if (i % 100 === 0) {
      lines.push(
        JSON.stringify({
          ...base,
          type: "ProbeCompleted",
          eventId: randomUUID(),
          occurredAt: (t += 7),
          cardHash: cardHash(c),
          skillId: "summarize",
          statesObserved: ["TASK_STATE_WORKING", "TASK_STATE_COMPLETED"],
          reobservable: ["TASK_STATE_WORKING", "TASK_STATE_COMPLETED"],
          emittedModes: ["text/plain"],
          durable: false,
        }),
      );
    }
  }
  return lines;
}

describe("bounded reconciler state on Kafka", () => {
  it("keeps every changelog record under 100 KB for a 100,000-event correlation and a worker with 10,000 card fetches", async () => {
    const f = await fixture(admin, "bounded");
    fixtures.push(f);
    const reconciler = await startInProcess(f);
    running.push(reconciler);
    const start = Date.UTC(2026, 0, 1);
    const log: Observation[] = parseLines([
      ...refetches(10_000, start),
      ...longCorrelation(100_000, start + 1_000_000),
    ]);
    await produce(f.topics.observations, log);
    await waitForGroupAtEnd(admin, f, 600_000);

    const records = await readAll(f.topics.changelog);
    const sizes = new Map<string, number>();
    for (const r of records) sizes.set(r.key ?? "", Math.max(sizes.get(r.key ?? "") ?? 0, r.value?.length ?? 0));
    console.log(`largest changelog records: ${JSON.stringify(Object.fromEntries(sizes))} (${records.length} records)`);
    expect(sizes.get("long-lived")).toBeGreaterThan(0);
    expect(sizes.get("probe-w-refetch")).toBeGreaterThan(0);
    for (const [key, size] of sizes) expect(size, `changelog record of ${key}`).toBeLessThan(100 * 1024);
    const processed = (await reconciler.metrics.registry.getSingleMetric("a2a_reconciler_observations_total")?.get())
      ?.values[0]?.value;
    expect(processed).toBe(log.length);
  }, 900_000);
});
