import { readFileSync } from "node:fs";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Admin } from "@a2a-ledger/kafka";
import { deleteTopics, type Fixture, fixture, kafka, type InProcessProjector, type RunningIngest, serde, startIngest, startProjector, startReconciler, waitFor, waitForGroupAtEnd } from "../test/pipeline.ts";
import { storyFile } from "../test/story.ts";
import type { Reconciler } from "@a2a-ledger/reconciler";

const lines = readFileSync(storyFile, "utf8").split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as Record<string, unknown>);
const probes = lines.filter((o) => String(o.correlationId).startsWith("probe-"));
const tasks = lines.filter((o) => !String(o.correlationId).startsWith("probe-"));

let admin: Admin;
let f: Fixture;
let ingest: RunningIngest;
let reconciler: Reconciler;
let projector: InProcessProjector;
const dir = mkdtempSync(join(tmpdir(), "projector-e2e-"));

beforeAll(async () => {
  admin = kafka.admin();
  await admin.connect();
  await serde.registerAll();
  f = await fixture(admin, "projector-story");
  ingest = await startIngest(f);
  reconciler = await startReconciler(f);
  projector = await startProjector(f, { PROJECTOR_SQLITE_PATH: join(dir, "projector.sqlite") });
  // Probes run before tasks are dispatched: the capabilities they verify are committed first.
  await ingest.post(probes);
  await waitForGroupAtEnd(admin, `reconciler-${f.suffix}`, f.topics.observations);
  await ingest.post(tasks);
  await waitForGroupAtEnd(admin, `reconciler-${f.suffix}`, f.topics.observations);
  await projector.projector.caughtUp(60_000);
});

afterAll(async () => {
  await projector?.stop();
  await reconciler?.stop();
  await ingest?.close();
  if (f !== undefined) await deleteTopics(admin, f);
  await admin?.disconnect();
  rmSync(dir, { recursive: true, force: true });
});

const get = async (url: string) => {
  const response = await projector.server.inject({ method: "GET", url });
  return { status: response.statusCode, body: response.json() as Record<string, unknown> & { [k: string]: any } };
};

describe("the projector on Kafka (DESIGN §1 posted through ingest, decided by the reconciler)", () => {
  it("shows the lineage: both attempts with their server task ids, the indeterminate period, the re-dispatch and the violations", async () => {
    const { status, body } = await get("/v1/tasks/task-42");
    expect(status).toBe(200);
    expect(body.status).toBe("reconciled");
    expect(body.attempts.map((a: any) => [a.workerId, a.serverTasks.map((s: any) => s.serverTaskId)])).toEqual([["w-acme", ["acme-7f3a"]], ["w-gamma", ["gamma-19c2"]]]);
    expect(body.indeterminate).toHaveLength(1);
    expect(body.decisions.map((d: any) => `${d.kind}:${d.type}`)).toEqual(expect.arrayContaining(["decision:TaskIndeterminate", "decision:RedispatchCommanded", "command:RedispatchCommanded", "decision:TaskReconciled"]));
    expect(body.violations.map((v: any) => v.kind)).toContain("DIVERGENT_ARTIFACTS");
    expect(body.decisions.find((d: any) => d.type === "RedispatchCommanded" && d.kind === "decision").source.topic).toBe(f.topics.decisions);
    expect(body.decisions.find((d: any) => d.type === "RedispatchCommanded" && d.kind === "command").source.topic).toBe(f.topics.commands);
  });

  it("knows the workers: w-gamma verified with input-required, w-beta never advertised it", async () => {
    const { body } = await get("/v1/workers/w-gamma");
    expect(body.skills[0].verified.states).toContain("TASK_STATE_INPUT_REQUIRED");
    const beta = await get("/v1/workers/w-beta");
    expect(beta.body.skills[0].advertised.states).not.toContain("TASK_STATE_INPUT_REQUIRED");
    const list = await get("/v1/workers");
    expect(list.body.items.map((w: any) => w.workerId)).toEqual(["w-acme", "w-beta", "w-gamma"]);
  });

  it("reports no lag once caught up, and lag metrics per partition", async () => {
    const { body } = await get("/v1/staleness");
    expect(body.topics.map((t: any) => t.topic).sort()).toEqual(Object.values({ a: f.topics.capabilities, b: f.topics.commands, c: f.topics.decisions, d: f.topics.dlq, e: f.topics.observations }).sort());
    expect(body.topics.every((t: any) => t.lagRecords === 0)).toBe(true);
    const metrics = await projector.server.inject({ method: "GET", url: "/metrics" });
    expect(metrics.body).toMatch(new RegExp(`a2a_projector_lag_records\\{topic="${f.topics.observations.replace(/\./g, "\\.")}",partition="\\d"\\} 0`));
    const ready = await projector.server.inject({ method: "GET", url: "/readyz" });
    expect(ready.json()).toMatchObject({ status: "ready", database: true, kafka: true });
  });

  it("keeps poison records of its input topics in the DLQ view with a reason code, and projects what follows", async () => {
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: f.topics.decisions, messages: [{ key: "task-99", value: Buffer.from("not avro") }] });
    const observation = await serde.encode({ ...(await import("../test/story.ts")).story()[0]!, eventId: "misplaced" } as never);
    await producer.send({ topic: f.topics.decisions, messages: [{ key: "probe-w-acme", value: observation }] });
    await producer.send({ topic: f.topics.observations, messages: [{ key: "task-x", value: Buffer.from([0, 0x7f, 0xff, 0xff, 1, 2]) }] });
    await producer.disconnect();
    await ingest.post([{ ...tasks[0], eventId: "after-poison", correlationId: "task-43" }]);
    await waitForGroupAtEnd(admin, `reconciler-${f.suffix}`, f.topics.observations);
    const dlq = await waitFor("dead letters", async () => {
      const { body } = await get("/v1/dlq");
      return body.items.length >= 4 ? body : undefined;
    });
    const reasons = dlq.items.map((d: any) => `${d.recordedBy}:${d.reason}`).sort();
    expect(reasons).toEqual(["projector:PROJECTOR_UNDECODABLE", "projector:PROJECTOR_UNKNOWN_SCHEMA", "projector:PROJECTOR_WRONG_TOPIC", "reconciler:RECONCILER_UNKNOWN_SCHEMA"]);
    const fromReconciler = dlq.items.find((d: any) => d.recordedBy === "reconciler");
    expect(fromReconciler).toMatchObject({ sourceTopic: f.topics.observations, key: "task-x" });
    await waitFor("task-43", async () => ((await get("/v1/tasks/task-43")).status === 200 ? true : undefined));
    const filtered = await get("/v1/dlq?reason=PROJECTOR_WRONG_TOPIC");
    expect(filtered.body.items).toHaveLength(1);
  });
});
