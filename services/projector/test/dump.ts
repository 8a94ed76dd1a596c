/** Every view row of a generation, in key order: what "the views equal a fresh rebuild" compares. */
import { tableNames } from "../src/store/schema.ts";
import type { Store } from "../src/store/store.ts";

const keys: Record<keyof ReturnType<typeof tableNames>, string> = {
  offset: "topic, log_partition",
  task: "correlation_id",
  taskKey: "kind, value, correlation_id",
  event: "correlation_id, id",
  attempt: "correlation_id, attempt",
  serverTask: "correlation_id, worker_id, server_task_id",
  artifact: "correlation_id, worker_id, server_task_id, artifact_id",
  violation: "decision_id",
  worker: "worker_id",
  card: "worker_id, card_hash",
  probe: "worker_id, event_id",
  dlq: "topic, log_partition, log_offset",
};

export async function dumpGeneration(store: Store, gen: number): Promise<Record<string, unknown[]>> {
  const t = tableNames(gen);
  const out: Record<string, unknown[]> = {};
  for (const [name, order] of Object.entries(keys) as [keyof typeof keys, string][]) {
    const rows = await store.read((r) => r.all(`SELECT * FROM ${t[name]} ORDER BY ${order}`));
    out[name] = rows.map((row) =>
      Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === "bigint" ? Number(v) : v])),
    );
  }
  return out;
}
