import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kafka, serde, type StoryPipeline, storyPipeline, waitFor, waitForGroupAtEnd } from "../test/pipeline.ts";
import { story } from "../test/story.ts";
import { normalizeTaskState } from "@a2a-ledger/core";

let pipeline: StoryPipeline;
const dir = mkdtempSync(join(tmpdir(), "projector-e2e-"));

beforeAll(async () => {
  pipeline = await storyPipeline("projector-story", dir);
});

afterAll(async () => {
  await pipeline?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const get = async (url: string) => {
  const response = await pipeline.projector.server.inject({ method: "GET", url });
  return { status: response.statusCode, body: response.json() as Record<string, unknown> & { [k: string]: any } };
};

describe("the projector on Kafka (DESIGN §1 posted through ingest, decided by the reconciler)", () => {
  it("shows the lineage: both attempts with their server task ids, the indeterminate period, the re-dispatch and the violations", async () => {
    const { status, body } = await get("/v1/tasks/task-42");
    expect(status).toBe(200);
    expect(body.status).toBe("reconciled");
    expect(body.attempts.map((a: any) => [a.workerId, a.serverTasks.map((s: any) => s.serverTaskId)])).toEqual([
      ["w-acme", ["acme-7f3a"]],
      ["w-gamma", ["gamma-19c2"]],
    ]);
    expect(body.indeterminate).toHaveLength(1);
    expect(body.decisions.map((d: any) => `${d.kind}:${d.type}`)).toEqual(
      expect.arrayContaining([
        "decision:TaskIndeterminate",
        "decision:RedispatchCommanded",
        "command:RedispatchCommanded",
        "decision:TaskReconciled",
      ]),
    );
    expect(body.violations.map((v: any) => v.kind)).toContain("DIVERGENT_ARTIFACTS");
    expect(
      body.decisions.find((d: any) => d.type === "RedispatchCommanded" && d.kind === "decision").source.topic,
    ).toBe(pipeline.fixture.topics.decisions);
    expect(body.decisions.find((d: any) => d.type === "RedispatchCommanded" && d.kind === "command").source.topic).toBe(
      pipeline.fixture.topics.commands,
    );
  });

  it("knows the workers: w-gamma verified with input-required, w-beta never advertised it", async () => {
    const { body } = await get("/v1/workers/w-gamma");
    expect(body.skills[0].verified.states).toContain("TASK_STATE_INPUT_REQUIRED");
    const beta = await get("/v1/workers/w-beta");
    expect(beta.body.skills[0].advertised.states).not.toContain("TASK_STATE_INPUT_REQUIRED");
    const list = await get("/v1/workers");
    expect(list.body.items.map((w: any) => w.workerId)).toEqual(["w-acme", "w-beta", "w-gamma"]);
  });

  it("serves the lineage as A2A task timelines: one Task per attempt's server task, entries in generation order mapping that attempt's states", async () => {
    const { status, body } = await get("/v1/tasks/task-42/timeline?format=a2a");
    expect(status).toBe(200);
    expect(body.specification).toMatchObject({
      repository: "a2aproject/A2A",
      pullRequest: 2129,
      revision: "b5fe6101b6d1ce9140b8292f141c39260274576d",
    });
    // The oracle: the story file itself, each server task's states in recorded order, repeats collapsed.
    const expected = new Map<string, string[]>();
    for (const o of pipeline.tasks.filter((x) => x.correlationId === "task-42" && x.type === "TaskStateObserved")) {
      const list = expected.get(String(o.serverTaskId)) ?? [];
      const state = normalizeTaskState(String(o.state));
      if (list.at(-1) !== state) list.push(String(state));
      expected.set(String(o.serverTaskId), list);
    }
    expect(
      body.tasks.map((t: any) => [t.id, t.metadata["a2a-ledger.workerId"], t.metadata["a2a-ledger.attempt"]]),
    ).toEqual([
      ["acme-7f3a", "w-acme", 1],
      ["gamma-19c2", "w-gamma", 2],
    ]);
    for (const task of body.tasks) {
      const generations = task.timeline.map((e: any) => Number(e.generation));
      expect(generations).toEqual([...generations].sort((a, b) => a - b));
      expect(new Set(generations).size).toBe(generations.length);
      expect(task.timeline[0]).toMatchObject({ message: { role: "ROLE_USER", taskId: task.id }, generation: "1" });
      expect(task.timeline.filter((e: any) => e.status !== undefined).map((e: any) => e.status.state)).toEqual(
        expected.get(task.id),
      );
      expect(task.status.state).toBe(expected.get(task.id)?.at(-1));
      expect(Number(task.generation)).toBeGreaterThanOrEqual(generations.at(-1));
      for (const a of task.artifacts) expect(Number(a.startGeneration)).toBeLessThanOrEqual(Number(task.generation));
    }
    expect(body.tasks[0].metadata["a2a-ledger.lostAt"]).toBe("2025-06-02T09:20:00.000Z");
    const limited = await get("/v1/tasks/task-42/timeline?format=a2a&timelineLength=1");
    expect(limited.body.tasks.map((t: any) => t.timeline.length)).toEqual([1, 1]);
  });

  it("answers 404 for an unknown correlation's timeline and 400 for a format it does not serve", async () => {
    expect((await get("/v1/tasks/no-such-task/timeline?format=a2a")).body.code).toBe("PROJECTOR_UNKNOWN_TASK");
    expect((await get("/v1/tasks/task-42/timeline?format=proto")).status).toBe(400);
    expect((await get("/v1/tasks/task-42/timeline?format=a2a&timelineLength=0")).status).toBe(400);
    expect((await get("/v1/tasks/task-42/timeline?format=a2a&other=1")).body.code).toBe("PROJECTOR_UNKNOWN_PARAMETER");
  });

  it("shows a refused emission on the task's lineage, its timeline and the worker's page", async () => {
    await pipeline.ingest.post([
      {
        type: "EmissionRefused",
        eventId: "refused-1",
        correlationId: "task-42",
        occurredAt: "2025-06-02T09:20:08Z",
        observer: "guard:w-gamma",
        workerId: "w-gamma",
        serverTaskId: "gamma-19c2",
        emission: "ARTIFACT",
        kind: "OUTPUT_MODE_NOT_ADVERTISED",
        artifactId: "art-x",
        parts: [{ kind: "text", mediaType: "text/html", sizeBytes: 5 }],
        allowed: ["text/plain"],
        skillId: "summarize",
      },
    ]);
    const lineage = await waitFor("the refusal on the lineage", async () => {
      const { body } = await get("/v1/tasks/task-42");
      return body.refusedEmissions?.length === 1 ? body : undefined;
    });
    expect(lineage.refusedEmissions[0]).toMatchObject({
      eventId: "refused-1",
      workerId: "w-gamma",
      serverTaskId: "gamma-19c2",
      attempt: 2,
      emission: "ARTIFACT",
      kind: "OUTPUT_MODE_NOT_ADVERTISED",
      refused: "text/html",
      allowed: ["text/plain"],
    });
    expect((await get("/v1/workers/w-gamma")).body.refusedEmissions.map((r: any) => r.eventId)).toEqual(["refused-1"]);
    const timeline = await get("/v1/tasks/task-42/timeline?format=a2a");
    expect(timeline.body.tasks[1].metadata["a2a-ledger.refusedEmissions"]).toMatchObject([
      { eventId: "refused-1", kind: "OUTPUT_MODE_NOT_ADVERTISED" },
    ]);
    // Nothing was emitted: no artifact and no violation come of it.
    expect(lineage.artifacts.map((a: any) => a.artifactId)).not.toContain("art-x");
  });

  it("reports no lag once caught up, and lag metrics per partition", async () => {
    const { body } = await get("/v1/staleness");
    expect(body.topics.map((t: any) => t.topic).sort()).toEqual(
      Object.values({
        a: pipeline.fixture.topics.capabilities,
        b: pipeline.fixture.topics.commands,
        c: pipeline.fixture.topics.decisions,
        d: pipeline.fixture.topics.dlq,
        e: pipeline.fixture.topics.observations,
      }).sort(),
    );
    expect(body.topics.every((t: any) => t.lagRecords === 0)).toBe(true);
    const metrics = await pipeline.projector.server.inject({ method: "GET", url: "/metrics" });
    expect(metrics.body).toMatch(
      new RegExp(
        `a2a_projector_lag_records\\{topic="${pipeline.fixture.topics.observations.replace(/\./g, "\\.")}",partition="\\d"\\} 0`,
      ),
    );
    // The queue as the operators' alerts read it, from the views at each scrape.
    const queue = (await get("/v1/queue")).body;
    expect(metrics.body).toContain(`a2a_projector_waiting_tasks{status="indeterminate"} ${queue.counts.indeterminate}`);
    expect(metrics.body).toContain(`a2a_projector_waiting_tasks{status="blocked"} ${queue.counts.blocked}`);
    expect(metrics.body).toMatch(/a2a_projector_oldest_waiting_seconds\{status="indeterminate"\} \d/);
    const ready = await pipeline.projector.server.inject({ method: "GET", url: "/readyz" });
    expect(ready.json()).toMatchObject({ status: "ready", database: true, kafka: true, consuming: true });
  });

  it("keeps poison records of its input topics in the DLQ view with a reason code, and projects what follows", async () => {
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({
      topic: pipeline.fixture.topics.decisions,
      messages: [{ key: "task-99", value: Buffer.from("not avro") }],
    });
    const observation = await serde.encode({ ...story()[0], eventId: "misplaced" } as never);
    await producer.send({
      topic: pipeline.fixture.topics.decisions,
      messages: [{ key: "probe-w-acme", value: observation }],
    });
    await producer.send({
      topic: pipeline.fixture.topics.observations,
      messages: [{ key: "task-x", value: Buffer.from([0, 0x7f, 0xff, 0xff, 1, 2]) }],
    });
    await producer.disconnect();
    await pipeline.ingest.post([{ ...pipeline.tasks[0], eventId: "after-poison", correlationId: "task-43" }]);
    await waitForGroupAtEnd(
      pipeline.admin,
      `reconciler-${pipeline.fixture.suffix}`,
      pipeline.fixture.topics.observations,
    );
    const dlq = await waitFor("dead letters", async () => {
      const { body } = await get("/v1/dlq");
      return body.items.length >= 4 ? body : undefined;
    });
    const reasons = dlq.items.map((d: any) => `${d.recordedBy}:${d.reason}`).sort();
    expect(reasons).toEqual([
      "projector:PROJECTOR_UNDECODABLE",
      "projector:PROJECTOR_UNKNOWN_SCHEMA",
      "projector:PROJECTOR_WRONG_TOPIC",
      "reconciler:RECONCILER_UNKNOWN_SCHEMA",
    ]);
    const fromReconciler = dlq.items.find((d: any) => d.recordedBy === "reconciler");
    expect(fromReconciler).toMatchObject({ sourceTopic: pipeline.fixture.topics.observations, key: "task-x" });
    await waitFor("task-43", async () => ((await get("/v1/tasks/task-43")).status === 200 ? true : undefined));
    const filtered = await get("/v1/dlq?reason=PROJECTOR_WRONG_TOPIC");
    expect(filtered.body.items).toHaveLength(1);
  });
});
