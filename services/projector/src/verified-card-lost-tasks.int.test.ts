/**
 * The verified card's evidence includes real lost tasks: under default/3 a task lost in an interrupted
 * state revokes that state from the worker's V (R9 for tasks), and the card says which task did it —
 * on the real pipeline (observations on Kafka, decided by the reconciler under A2A_LEDGER_RULES, projected).
 * Under default/2 the same log revokes nothing and names no lost task.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cardHash } from "@a2a-ledger/core";
import { agentCard, events } from "@a2a-ledger/core/testing/builders";
import type { Observation, TaskState } from "@a2a-ledger/schemas";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  deleteTopics,
  fixture,
  kafka,
  produce,
  serde,
  startProjector,
  startReconciler,
  waitForGroupAtEnd,
} from "../test/pipeline.ts";

const S: TaskState = "TASK_STATE_SUBMITTED";
const W: TaskState = "TASK_STATE_WORKING";
const IR: TaskState = "TASK_STATE_INPUT_REQUIRED";
const C: TaskState = "TASK_STATE_COMPLETED";

/** w-keep claims a durable store and verifies input-required; its task t-1 of `lost-1` is then lost while input-required. */
function lostWhileWaiting(): Observation[] {
  const e = events("lt-");
  const at = Date.UTC(2026, 0, 5, 9);
  const card = agentCard({
    org: "Keep",
    states: ["submitted", "working", "input-required", "completed", "failed"],
    taskStore: "durable",
    skills: [{ id: "summarize", outputModes: ["text/plain"] }],
  });
  return [
    e.card("w-keep", card, { at, maxAge: 300 }),
    e.probe("w-keep", cardHash(card), { at: at + 1_000, states: [S, W, IR, C], modes: ["text/plain"], durable: null }),
    e.dispatch("lost-1", "w-keep", { at: at + 2_000 }),
    e.state("lost-1", "w-keep", "t-1", "input-required", { at: at + 3_000 }),
    e.notFound("lost-1", "w-keep", "t-1", { at: at + 4_000 }),
  ];
}

interface Change {
  path: string;
  before: string | null;
  after: string | null;
  evidence?: {
    lostCanaries: unknown[];
    lostTasks: {
      correlationId: string;
      serverTaskId: string;
      state: string;
      lostEventId: string;
      lastSeenEventId: string;
      lostAt: string;
      decisionId: string;
    }[];
  };
}

const cleanups: (() => Promise<void>)[] = [];
beforeAll(async () => {
  await serde.registerAll();
}, 120_000);
// Each case stops its reconciler and projector before the next starts its own.
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
}, 120_000);

/** The log through Kafka, decided by the reconciler under `rules`, projected; the worker's verified card. */
async function verifiedCardUnder(rules: string, log: readonly Observation[]) {
  const admin = kafka.admin();
  await admin.connect();
  cleanups.push(() => admin.disconnect());
  const f = await fixture(admin, `vc-lost-${rules.replace("/", "")}`, { A2A_LEDGER_RULES: rules });
  cleanups.push(() => deleteTopics(admin, f));
  const dir = mkdtempSync(join(tmpdir(), "projector-lost-"));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  const reconciler = await startReconciler(f);
  cleanups.push(() => reconciler.stop());
  const projector = await startProjector(f, { A2A_LEDGER_PROJECTOR_SQLITE_PATH: join(dir, "projector.sqlite") });
  cleanups.push(() => projector.stop());
  // Probes before tasks, as a mesh runs them: the capabilities they verify are decided first (another partition).
  const group = `reconciler-${f.suffix}`;
  await produce(
    f.topics.observations,
    log.filter((o) => o.correlationId.startsWith("probe-")),
  );
  await waitForGroupAtEnd(admin, group, f.topics.observations);
  await produce(
    f.topics.observations,
    log.filter((o) => !o.correlationId.startsWith("probe-")),
  );
  await waitForGroupAtEnd(admin, group, f.topics.observations);
  await projector.projector.caughtUp(60_000);
  const response = await projector.server.inject({ method: "GET", url: "/v1/workers/w-keep/verified-card" });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as {
    card: { capabilities: { extensions: { uri: string; params: { states: string[]; taskStore: string } }[] } };
    diff: Change[];
  };
}

describe("GET /v1/workers/:id/verified-card: lost tasks as evidence (real Kafka)", () => {
  it("under default/3 removes input-required and durability, naming the lost task (its loss, its last sighting, the revoking decision)", async () => {
    const log = lostWhileWaiting();
    const view = await verifiedCardUnder("default/3", log);
    const params = view.card.capabilities.extensions.find((x) => "states" in (x.params ?? {}))?.params;
    expect(params?.states).toEqual(["submitted", "working", "completed"]);
    expect(params?.taskStore).toBe("ephemeral");
    const removed = view.diff.filter((c) => c.before !== null && c.path.startsWith("/capabilities/"));
    expect(removed.length).toBeGreaterThan(0);
    const [notFound, seen] = [log[4] as Observation, log[3] as Observation];
    for (const change of removed) {
      expect(change.evidence?.lostTasks, change.path).toEqual([
        {
          correlationId: "lost-1",
          serverTaskId: "t-1",
          state: IR,
          lostEventId: notFound.eventId,
          lastSeenEventId: seen.eventId,
          lostAt: new Date(notFound.occurredAt).toISOString(),
          decisionId: expect.stringMatching(/CapabilitiesVerified/),
        },
      ]);
      expect(change.evidence?.lostCanaries).toEqual([]);
    }
  }, 180_000);

  it("under default/2 the same loss is no evidence: input-required stays verified and no lost task is named", async () => {
    const view = await verifiedCardUnder("default/2", lostWhileWaiting());
    const params = view.card.capabilities.extensions.find((x) => "states" in (x.params ?? {}))?.params;
    expect(params?.states).toContain("input-required");
    for (const change of view.diff) expect(change.evidence?.lostTasks ?? [], change.path).toEqual([]);
  }, 180_000);
});
