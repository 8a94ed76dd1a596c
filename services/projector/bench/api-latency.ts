/**
 * The projector benches' read load: the same six requests against the API of a loaded store — the lineage
 * of a random task, the first page of the task list, the list by status, by worker, by server task id,
 * and a second page by cursor — each `count` times over HTTP, with p50, p99 and max in milliseconds.
 * Tasks are the generated log's `task-1` … `task-<tasks>` (`generateLog` of the core).
 */
import { prng } from "@a2a-ledger/core/testing";

export interface Percentiles {
  p50: number;
  p99: number;
  max: number;
}

export function percentiles(samples: number[]): Percentiles {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] as number;
  return { p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] as number };
}

/** `count` requests of each kind against the API at `url`; a task's lineage drawn from the first `tasks` tasks. */
export async function apiLatency(url: string, tasks: number, count: number): Promise<Record<string, Percentiles>> {
  const random = prng(7);
  const first = (await (await fetch(`${url}/v1/tasks?limit=50`)).json()) as { nextCursor: string };
  const lineage = (await (await fetch(`${url}/v1/tasks/task-1`)).json()) as {
    attempts: { serverTasks: { serverTaskId: string }[] }[];
  };
  const serverTaskId = lineage.attempts[0]?.serverTasks[0]?.serverTaskId ?? "none";
  const queries: Record<string, () => string> = {
    "lineage of a random task": () => `/v1/tasks/task-${1 + Math.floor(random() * Math.max(1, tasks))}`,
    "task list, first page (50)": () => "/v1/tasks?limit=50",
    "task list by status": () => "/v1/tasks?status=reconciled&limit=50",
    "task list by worker": () => "/v1/tasks?workerId=w-gamma&limit=50",
    "task list by server task id (q)": () => `/v1/tasks?q=${encodeURIComponent(serverTaskId)}`,
    "task list, second page by cursor": () => `/v1/tasks?limit=50&cursor=${encodeURIComponent(first.nextCursor)}`,
  };
  const latency: Record<string, Percentiles> = {};
  for (const [name, next] of Object.entries(queries)) {
    const samples: number[] = [];
    for (let i = 0; i < count; i++) {
      const path = next();
      const t = performance.now();
      const response = await fetch(`${url}${path}`);
      await response.arrayBuffer();
      samples.push(performance.now() - t);
      if (response.status !== 200) throw new Error(`${name} (${path}): ${response.status}`);
    }
    latency[name] = percentiles(samples);
  }
  return latency;
}
