/**
 * R1: an emitted state outside A(W) (the card in force when it was seen) is STATE_NOT_ADVERTISED; under
 * verify, a state the card advertises but the probe of that card did not verify is STATE_NOT_VERIFIED
 * (only once a probe verified the card: before that the outstanding ProbeRequested is the signal).
 * The observation is recorded regardless; UNSPECIFIED carries no claim and is never a violation.
 */
import type { DecisionDraft, ViolationDraft } from "../../decisions.ts";
import { policyFor } from "../../policy.ts";
import { noDecisions, type RuleInput } from "./rule.ts";
import { unreported } from "./violations.ts";

export function r1States(input: RuleInput): readonly DecisionDraft[] {
  const obs = input.observation;
  if (obs.type !== "TaskStateObserved" || obs.state === "TASK_STATE_UNSPECIFIED") return noDecisions;
  const snap = input.capabilities.asOf(obs.workerId, obs.occurredAt);
  if (snap === undefined) return noDecisions;
  const base = {
    type: "ContractViolation",
    workerId: obs.workerId,
    serverTaskId: obs.serverTaskId,
    observed: obs.state,
    cardHash: snap.cardHash,
  } as const;
  let violation: ViolationDraft | null = null;
  if (!snap.advertisedStates.includes(obs.state)) {
    violation = {
      ...base,
      kind: "STATE_NOT_ADVERTISED",
      allowed: snap.advertisedStates,
      detail: `${obs.observer} saw ${obs.rawState} via ${obs.via}; the card in force does not advertise it`,
    };
  } else if (snap.verified && policyFor(input.policy, snap) === "verify" && !snap.verifiedStates.includes(obs.state)) {
    violation = {
      ...base,
      kind: "STATE_NOT_VERIFIED",
      allowed: snap.verifiedStates,
      detail: `${obs.observer} saw ${obs.rawState} via ${obs.via}; the probe of the card in force did not verify it`,
    };
  }
  return violation === null ? noDecisions : unreported(input.state, [violation]);
}
