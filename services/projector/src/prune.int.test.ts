/** `prune --before` on the stores the real pipeline (reconciler, projector) wrote from Kafka: SQLite and PostgreSQL. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Admin } from "@a2a-ledger/kafka";
import type { Reconciler } from "@a2a-ledger/reconciler";
import type { Observation } from "@a2a-ledger/schemas";
import { dumpGeneration } from "../test/dump.ts";
import {
  deleteTopics,
  type Fixture,
  fixture,
  generatedObservations,
  type InProcessProjector,
  kafka,
  produce,
  runPrune,
  serde,
  startProjector,
  startReconciler,
  waitForGroupAtEnd,
} from "../test/pipeline.ts";
import { storeKinds, storeLocation, useStores } from "../test/stores.ts";
import { activeGeneration } from "./store/generations.ts";

const day = 24 * 60 * 60 * 1000;
const cut = "2025-04-01";
const cutMs = Date.UTC(2025, 3, 1);

/**
 * Two groups of the core's generated correlations (about 10 % lost and re-dispatched): the old group
 * 100 days earlier (February 2025) under `old-` ids, the new one as generated (June 2025). The
 * cards and probes come once, 100 days earlier too, so that the old group's losses are re-dispatched
 * when they happen. `old-task-1` gets one late observation in June: a correlation with an event after the cut.
 */
function twoGroups(perGroup: number): {
  probes: Observation[];
  old: Observation[];
  fresh: Observation[];
  late: Observation;
} {
  const generated = generatedObservations(perGroup);
  const probes = generated
    .filter((o) => o.correlationId.startsWith("probe-"))
    .map((o) => ({ ...o, occurredAt: o.occurredAt - 100 * day }) as Observation);
  const tasks = generated.filter((o) => !o.correlationId.startsWith("probe-"));
  const old = tasks.map((o) => {
    const text = JSON.stringify({ ...o, occurredAt: o.occurredAt - 100 * day })
      .replaceAll('"task-', '"old-task-')
      .replaceAll('"ev-', '"old-ev-')
      .replaceAll('"ctx-', '"old-ctx-')
      .replace(/"serverTaskId":"/g, '"serverTaskId":"old-');
    return JSON.parse(text) as Observation;
  });
  const lastOfFirst = [...old].reverse().find((o) => o.correlationId === "old-task-1") as Observation;
  const late = { ...lastOfFirst, eventId: "late-1", occurredAt: Date.UTC(2025, 5, 1) } as Observation;
  return { probes, old, fresh: tasks, late };
}

describe.each(storeKinds)("prune on %s", (kind) => {
  useStores();
  let admin: Admin;
  let f: Fixture;
  let reconciler: Reconciler;
  let projector: InProcessProjector;
  let storeEnv: NodeJS.ProcessEnv;
  const groups = twoGroups(3_000);

  beforeAll(async () => {
    admin = kafka.admin();
    await admin.connect();
    await serde.registerAll();
    const location = await storeLocation(kind);
    storeEnv =
      kind === "sqlite"
        ? { A2A_LEDGER_PROJECTOR_SQLITE_PATH: location }
        : { A2A_LEDGER_PROJECTOR_DATABASE_URL: location };
    f = await fixture(admin, `projector-prune-${kind}`, storeEnv);
    reconciler = await startReconciler(f);
    projector = await startProjector(f, storeEnv);
  });

  afterAll(async () => {
    await projector?.stop();
    await reconciler?.stop();
    if (f !== undefined) await deleteTopics(admin, f);
    await admin?.disconnect();
  });

  it("removes exactly the correlations whose last event is before the cut; the others answer as before", async () => {
    const reconcilerGroup = `reconciler-${f.suffix}`;
    await produce(f.topics.observations, groups.probes);
    await waitForGroupAtEnd(admin, reconcilerGroup, f.topics.observations);
    await produce(f.topics.observations, [...groups.old, ...groups.fresh, groups.late]);
    await waitForGroupAtEnd(admin, reconcilerGroup, f.topics.observations);
    await projector.projector.caughtUp(60_000);

    const store = projector.store;
    const gen = (await store.read(activeGeneration)) as number;
    const before = await dumpGeneration(store, gen);
    const tasks = before.task as { correlation_id: string }[];
    // What must go, from the events alone: the correlations whose every event (observation or decision) is before the cut.
    const lastEvent = new Map<string, number>();
    for (const e of before.event as { correlation_id: string; occurred_at: number }[])
      lastEvent.set(e.correlation_id, Math.max(lastEvent.get(e.correlation_id) ?? -Infinity, e.occurred_at));
    const expectedGone = new Set([...lastEvent].filter(([, at]) => at < cutMs).map(([id]) => id));
    const oldIds = new Set([...groups.old, ...groups.probes].map((o) => o.correlationId));
    expect([...expectedGone].filter((id) => !oldIds.has(id))).toEqual([]);
    expect(expectedGone.size).toBeGreaterThan(300);
    expect(expectedGone.has("old-task-1")).toBe(false);
    expect(lastEvent.has("old-task-1")).toBe(true);
    // The old group has re-dispatched correlations, violations and cards' probes: the rows of every kind go.
    const gone = (rows: unknown[] | undefined) =>
      (rows ?? []).filter((r) => expectedGone.has(String((r as { correlation_id?: unknown }).correlation_id)));
    expect(gone(before.event).some((e) => (e as { type: string }).type === "RedispatchCommanded")).toBe(true);
    expect(gone(before.violation).length).toBeGreaterThan(0);
    expect(gone(before.artifact).length).toBeGreaterThan(0);
    expect(gone(before.taskKey).length).toBeGreaterThan(0);
    expect(expectedGone.has("probe-w-gamma")).toBe(true);

    const kept = tasks.map((t) => t.correlation_id).filter((id) => !expectedGone.has(id));
    const answer = async (id: string) => {
      const lineage = await projector.server.inject({ method: "GET", url: `/v1/tasks/${encodeURIComponent(id)}` });
      const events = await projector.server.inject({
        method: "GET",
        url: `/v1/tasks/${encodeURIComponent(id)}/events.ndjson`,
      });
      return { status: lineage.statusCode, lineage: lineage.body, events: events.body };
    };
    const answersBefore = new Map<string, Awaited<ReturnType<typeof answer>>>();
    for (const id of kept) answersBefore.set(id, await answer(id));
    const listBefore = (
      await projector.server.inject({ method: "GET", url: "/v1/tasks?q=w-gamma&limit=500" })
    ).json() as { items: { correlationId: string }[] };

    // The prune runs as its own process, as `a2a-ledger projector prune` runs it, beside the running projector.
    const result = await runPrune({ ...f.env, ...storeEnv }, cut);
    expect(result.code, result.output).toBe(0);
    expect(result.output).toContain(`"correlations":${expectedGone.size}`);

    const after = await dumpGeneration(store, gen);
    const ofKept = (rows: unknown[] | undefined) =>
      (rows ?? []).filter((r) => !expectedGone.has(String((r as { correlation_id?: unknown }).correlation_id)));
    for (const table of ["task", "taskKey", "event", "attempt", "serverTask", "artifact", "violation"]) {
      expect(after[table], table).toEqual(ofKept(before[table]));
      expect(
        (after[table] ?? []).some((r) => expectedGone.has(String((r as { correlation_id: unknown }).correlation_id))),
        table,
      ).toBe(false);
    }
    for (const table of ["worker", "card", "probe", "dlq", "offset"])
      expect(after[table], table).toEqual(before[table]);

    for (const id of kept) expect(await answer(id), id).toEqual(answersBefore.get(id));
    for (const id of expectedGone) {
      const response = await projector.server.inject({ method: "GET", url: `/v1/tasks/${encodeURIComponent(id)}` });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ code: "PROJECTOR_UNKNOWN_TASK" });
    }
    const listAfter = (
      await projector.server.inject({ method: "GET", url: "/v1/tasks?q=w-gamma&limit=500" })
    ).json() as { items: { correlationId: string }[] };
    expect(listAfter.items).toEqual(listBefore.items.filter((t) => !expectedGone.has(t.correlationId)));

    // A second prune finds nothing; the running projector keeps projecting.
    const again = await runPrune({ ...f.env, ...storeEnv }, cut);
    expect(again.output).toContain('"correlations":0');
    await produce(f.topics.observations, [
      { ...groups.late, eventId: "late-2", correlationId: "after-prune" } as Observation,
    ]);
    await waitForGroupAtEnd(admin, reconcilerGroup, f.topics.observations);
    await projector.projector.caughtUp(60_000);
    expect((await projector.server.inject({ method: "GET", url: "/v1/tasks/after-prune" })).statusCode).toBe(200);
  });
});
