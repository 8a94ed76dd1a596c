/**
 * GET /v1/route: the core's `route` (R6's own verdicts and ranking) over the capability snapshots the
 * projector holds — the newest snapshot per worker from a2a.capabilities.v1, the compacted topic a
 * restarted reconciler rebuilds its capability table from — read as of now (or the newest validFrom, if
 * a snapshot is dated later than the projector's clock), so each worker's snapshot in force is its newest.
 * Trust is judged by the trust policy version in force at that moment, named in the answer.
 */
import { CapabilityTable, type PolicySource, route, type RouteQuery } from "@a2a-ledger/core";
import type { CapabilitySnapshot } from "@a2a-ledger/schemas";
import type { Tables } from "../store/schema.ts";
import type { Reader } from "../store/store.ts";
import { iso } from "./lineage.ts";
import { policyInForce } from "./workers.ts";

export async function routeView(
  r: Reader,
  t: Tables,
  source: PolicySource,
  query: Omit<RouteQuery, "at">,
  now: number,
  limit: number,
) {
  const rows = await r.all(`SELECT snapshot FROM ${t.worker} WHERE snapshot IS NOT NULL ORDER BY worker_id`, []);
  const snapshots = rows.map((row) => JSON.parse(String(row.snapshot)) as CapabilitySnapshot);
  const at = snapshots.reduce((m, s) => Math.max(m, s.validFrom), now);
  const { config: policy, version: policyVersion } = policyInForce(source, at);
  const answer = route(CapabilityTable.fromSnapshots(snapshots), { ...query, at }, policy);
  return {
    ...answer,
    at: iso(at),
    policyVersion,
    eligibleCount: answer.workers.length,
    ineligibleCount: answer.ineligible.length,
    workers: answer.workers.slice(0, limit).map((w) => ({ ...w, validFrom: iso(w.validFrom) })),
    ineligible: answer.ineligible.slice(0, limit),
  };
}
