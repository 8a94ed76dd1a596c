/**
 * R9: a parked canary (a probe task left in an interrupted state) that later answers TaskNotFound shows
 * that the worker does not keep interrupted tasks. When the canary's card is still in force, its
 * interrupted states are revoked from every skill's V and the card is marked not durable (a new
 * snapshot, announced with CapabilitiesVerified) — which also revokes trust in it (see policyOf).
 * When the card claimed a durable task store, TASK_STORE_NOT_DURABLE is recorded against the card the
 * canary was parked under. Only the canary's first loss counts.
 */
import type { DecisionDraft } from "../decisions.ts";
import { canaryOf } from "../correlation/state.ts";
import { snapshotRevokingInterrupted } from "../verification.ts";
import { noOutput, type RuleInput, type RuleOutput } from "./rule.ts";
import { unreported } from "./violations.ts";

export function r9Durability(input: RuleInput): RuleOutput {
  const obs = input.observation;
  if (obs.type !== "TaskNotFoundObserved") return noOutput;
  const canary = canaryOf(input.state, obs.workerId, obs.serverTaskId);
  if (canary === undefined || canary.lost) return noOutput;
  const parkedUnder = input.capabilities.asOf(obs.workerId, canary.parkedAt);
  const current = input.capabilities.asOf(obs.workerId, obs.occurredAt);
  const decisions: DecisionDraft[] = [];
  if (parkedUnder !== undefined && parkedUnder.cardHash === canary.cardHash && parkedUnder.taskStore === "durable") {
    decisions.push(
      ...unreported(input.state, [
        {
          type: "ContractViolation",
          workerId: obs.workerId,
          kind: "TASK_STORE_NOT_DURABLE",
          serverTaskId: obs.serverTaskId,
          observed: `TaskNotFound (${obs.errorCode}) for a canary parked in ${canary.state}`,
          allowed: ["durable"],
          cardHash: canary.cardHash,
          detail: `the card claims a durable task store, but canary ${canary.serverTaskId} parked by probe ${canary.probeEventId} was lost`,
          causeEventIds: [canary.probeEventId],
        },
      ]),
    );
  }
  const revoked =
    current !== undefined && current.cardHash === canary.cardHash
      ? snapshotRevokingInterrupted(current, obs)
      : undefined;
  if (revoked === undefined) return decisions.length === 0 ? noOutput : { decisions, capabilityUpdates: [], cards: [] };
  decisions.push({
    type: "CapabilitiesVerified",
    workerId: obs.workerId,
    cardHash: revoked.cardHash,
    states: revoked.verifiedStates,
    outputModes: revoked.verifiedSkills.map((k) => ({ skillId: k.skillId ?? "*", outputModes: k.outputModes })),
    durable: false,
    skills: revoked.verifiedSkills,
    causeEventIds: [canary.probeEventId],
  });
  return { decisions, capabilityUpdates: [revoked], cards: [] };
}
