/**
 * `npm run bench:heap -w @a2a-ledger/reconciler`: the heap one live correlation costs the reconciler —
 * COUNT (default 50000) five-event correlations, serialised by the real decider and held as a restore
 * holds them (deserialised, in a Map keyed by correlationId) and as the fold leaves them after a commit,
 * heap used before and after a full GC.
 * Needs `--expose-gc` (the script sets it). The default of A2A_LEDGER_RECONCILER_MAX_CORRELATIONS is
 * derived from this figure (see budget.ts).
 */
import v8 from "node:v8";
import type { LedgerState } from "@a2a-ledger/core";
import { correlationStates, correlationValues, decider } from "../test/correlation-states.ts";

const count = Number(process.env.COUNT ?? 50_000);
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("run with node --expose-gc");
const values: [string, Buffer][] = [...correlationValues("heap", count)];
const bytes = values.reduce((n, [, v]) => n + v.length, 0);
gc();
gc();
const before = process.memoryUsage().heapUsed;
const states = new Map<string, LedgerState>();
for (const [id, value] of values) states.set(id, decider.deserialize(value));
gc();
gc();
const after = process.memoryUsage().heapUsed;
states.clear();
values.length = 0;
gc();
gc();
// As a partition holds them after its own commits: the states the fold left.
const beforeFolded = process.memoryUsage().heapUsed;
const folded = new Map(correlationStates("heap", count));
gc();
gc();
const afterFolded = process.memoryUsage().heapUsed;
console.log(
  JSON.stringify({
    correlations: count,
    serializedBytesPerCorrelation: Math.round(bytes / count),
    heapBytesPerRestoredCorrelation: Math.round((after - before) / count),
    heapBytesPerFoldedCorrelation: Math.round((afterFolded - beforeFolded) / folded.size),
    heapSizeLimit: v8.getHeapStatistics().heap_size_limit,
  }),
);
