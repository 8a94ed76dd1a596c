/**
 * The observation of a refused emission (`EmissionRefused`, ingest JSON shape). Its event id is
 * derived from what was refused, so that a retried send is the same fact for the ledger.
 */
import { createHash } from "node:crypto";
import type { ObservationInput } from "@a2a-ledger/ingest-client";
import type { Emission, Verdict } from "./emission-check.ts";

export interface RefusalContext {
  correlationId: string;
  workerId: string;
  observer: string;
  skillId: string | null;
  cardHash: string | null;
}

export function refusalObservation(
  ctx: RefusalContext,
  emission: Emission,
  verdict: Extract<Verdict, { allowed: false }>,
  at: number,
): ObservationInput {
  const what =
    emission.emission === "STATUS"
      ? emission.rawState
      : `${emission.artifactId}\u0000${JSON.stringify(emission.parts)}`;
  const digest = createHash("sha256")
    .update(
      [
        ctx.correlationId,
        ctx.observer,
        ctx.workerId,
        emission.serverTaskId,
        emission.emission,
        what,
        ctx.cardHash ?? "",
      ].join("\u0000"),
    )
    .digest("hex")
    .slice(0, 40);
  return {
    type: "EmissionRefused",
    eventId: `refused-${digest}`,
    correlationId: ctx.correlationId,
    occurredAt: at,
    observer: ctx.observer,
    workerId: ctx.workerId,
    serverTaskId: emission.serverTaskId,
    contextId: emission.contextId,
    skillId: ctx.skillId,
    emission: emission.emission,
    kind: verdict.kind,
    state: verdict.kind === "STATE_NOT_ADVERTISED" ? (verdict.state ?? "TASK_STATE_UNSPECIFIED") : null,
    rawState: verdict.kind === "STATE_NOT_ADVERTISED" ? verdict.rawState : null,
    artifactId: emission.emission === "ARTIFACT" ? emission.artifactId : null,
    parts: emission.emission === "ARTIFACT" ? emission.parts : [],
    allowed: verdict.allowedValues,
    cardHash: ctx.cardHash,
  };
}
