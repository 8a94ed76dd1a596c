/**
 * R9: a parked canary (a probe task left in an interrupted state) that later answers TaskNotFound shows
 * the worker does not keep interrupted tasks: the interrupted states are revoked from V(W) (a new
 * capability snapshot, announced with CapabilitiesVerified) and, when the card claimed a durable task
 * store, TASK_STORE_NOT_DURABLE is recorded.
 */
import { snapshotRevokingInterrupted } from "../capability-snapshots.ts";
import type { DecisionDraft } from "../../decisions.ts";
import type { PartialOutput, RuleInput } from "./rule.ts";
import { unreported } from "./violations.ts";

export function r9Durability(input: RuleInput): PartialOutput {
  const obs = input.observation;
  if (obs.type !== "TaskNotFoundObserved") return {};
  const canary = input.before.parkedCanaries.find(
    (c) => c.serverTaskId === obs.serverTaskId && c.workerId === obs.workerId,
  );
  if (canary === undefined) return {};
  const current = input.capabilities.asOf(obs.workerId, obs.occurredAt);
  if (current === undefined) return {};
  const decisions: DecisionDraft[] = [];
  if (current.taskStore === "durable") {
    decisions.push(
      ...unreported(input.state, [
        {
          type: "ContractViolation",
          workerId: obs.workerId,
          kind: "TASK_STORE_NOT_DURABLE",
          serverTaskId: obs.serverTaskId,
          observed: `TaskNotFound (${obs.errorCode}) for a canary parked in ${canary.state}`,
          allowed: ["durable"],
          cardHash: current.cardHash,
          detail: `the card claims a durable task store, but canary ${canary.serverTaskId} parked by probe ${canary.probeEventId} was lost`,
          causeEventIds: [canary.probeEventId],
        },
      ]),
    );
  }
  if (!current.verified) return { decisions };
  const revoked = snapshotRevokingInterrupted(current, obs);
  decisions.push({
    type: "CapabilitiesVerified",
    workerId: obs.workerId,
    cardHash: revoked.cardHash,
    states: revoked.verifiedStates,
    outputModes: [],
    durable: revoked.durable,
    causeEventIds: [canary.probeEventId],
  });
  return { decisions, capabilityUpdates: [revoked] };
}
