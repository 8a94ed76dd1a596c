import { afterAll, beforeAll, expect, it } from "vitest";
import type { Admin } from "@a2a-ledger/kafka";
import type { Reconciler } from "@a2a-ledger/reconciler";
import type { Observation } from "@a2a-ledger/schemas";
import { dumpGeneration } from "../test/dump.ts";
import {
  deleteTopics,
  type Fixture,
  fixture,
  type InProcessProjector,
  kafka,
  produce,
  serde,
  startProjector,
  startReconciler,
  waitFor,
  waitForGroupAtEnd,
  generatedObservations,
} from "../test/pipeline.ts";
import { freshDatabase, type PostgresServer, startPostgres } from "../test/postgres.ts";
import { createLogger } from "./logger.ts";
import { rebuild } from "./rebuild.ts";
import { activeGeneration } from "./store/generations.ts";

const count = 3_000;
const observations: Observation[] = generatedObservations(count);

let admin: Admin;
let f: Fixture;
let postgres: PostgresServer;
let reconciler: Reconciler;
const projectors: InProcessProjector[] = [];

beforeAll(async () => {
  admin = kafka.admin();
  await admin.connect();
  await serde.registerAll();
  postgres = await startPostgres();
  f = await fixture(admin, "projector-multi", {
    A2A_LEDGER_PROJECTOR_DATABASE_URL: await freshDatabase(postgres.url),
    A2A_LEDGER_PROJECTOR_MAX_BATCH: "50",
    A2A_LEDGER_PROJECTOR_CONCURRENCY: "3",
  });
  reconciler = await startReconciler(f);
});

afterAll(async () => {
  for (const p of projectors) await p.stop().catch(() => undefined);
  await reconciler?.stop();
  if (f !== undefined) await deleteTopics(admin, f);
  await admin?.disconnect();
  await postgres?.stop();
});

it("two instances on one PostgreSQL share the partitions and stay correct; a rebuild meanwhile keeps queries working and yields the same views", async () => {
  const first = await startProjector(f, {});
  projectors.push(first);
  await produce(f.topics.observations, observations.slice(0, count / 2));
  // The second instance joins mid-stream: the group rebalances while both write.
  await waitFor("the first instance to make progress", async () =>
    (await first.server.inject({ method: "GET", url: "/v1/tasks?limit=1" })).json().items.length > 0 ? true : undefined,
  );
  const second = await startProjector(f, {});
  projectors.push(second);
  await produce(f.topics.observations, observations.slice(count / 2));
  await waitForGroupAtEnd(admin, `reconciler-${f.suffix}`, f.topics.observations, 180_000);
  await first.projector.caughtUp(180_000);

  // A live stream on one instance sees changes the other instance may have projected (LISTEN/NOTIFY).
  const address = await first.server.listen({ host: "127.0.0.1", port: 0 });
  const controller = new AbortController();
  const response = await fetch(`${address}/v1/stream?correlationId=task-7`, { signal: controller.signal });
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  let received = "";
  const seen = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return false;
      received += new TextDecoder().decode(value);
      if (received.includes("event: task") && received.includes('"correlationId":"task-7"')) return true;
    }
  })();
  const late = observations.find((o) => o.correlationId === "task-7" && o.type === "TaskStateObserved") as Observation;
  await produce(f.topics.observations, [{ ...late, eventId: "late-for-stream" } as Observation]);
  expect(await Promise.race([seen, new Promise((r) => setTimeout(() => r(false), 30_000))])).toBe(true);
  controller.abort();
  await waitForGroupAtEnd(admin, `reconciler-${f.suffix}`, f.topics.observations, 60_000);
  await first.projector.caughtUp(60_000);
  await second.projector.caughtUp(60_000);

  const store = first.store;
  const liveGen = (await store.read(activeGeneration)) as number;
  const live = await dumpGeneration(store, liveGen);
  expect(live.event?.filter((e) => (e as { kind: string }).kind === "observation")).toHaveLength(count + 1);

  let queries = 0;
  let failures = 0;
  let rebuilding = true;
  const querying = (async () => {
    while (rebuilding) {
      const r = await first.server.inject({ method: "GET", url: "/v1/tasks/task-7" });
      queries += 1;
      if (r.statusCode !== 200) failures += 1;
    }
  })();
  const result = await rebuild(first.config, store, createLogger("warn"), { dropAfterMs: 500 });
  rebuilding = false;
  await querying;
  expect(queries).toBeGreaterThan(10);
  expect(failures).toBe(0);
  expect(result.previous).toBe(liveGen);
  expect(await dumpGeneration(store, result.generation)).toEqual(live);
}, 600_000);
