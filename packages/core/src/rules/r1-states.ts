/**
 * R1: a state outside A(W) (the card in force when it was seen) is STATE_NOT_ADVERTISED. Under verify,
 * STATE_NOT_VERIFIED is reserved for the states reconciliation relies on — the interrupted states a lost
 * task is resumed from and COMPLETED, which a restart needs — when the probe of the task's skill did
 * not verify them. A probe cannot make a worker fail, be canceled or rejected, and cannot always catch a
 * task in its transient states, so those are never "not verified". The observation is recorded regardless;
 * UNSPECIFIED carries no claim and is never a violation.
 */
import type { TaskState, TaskStateObserved } from "@a2a-ledger/schemas";
import { termsFor } from "../correlation/attempts.ts";
import type { ViolationDraft } from "../decisions.ts";
import { policyOf, verifiedSkill } from "../verification.ts";
import { decided, noOutput, type RuleInput, type RuleOutput } from "./rule.ts";
import { unreported } from "./violations.ts";

/** The states R6 relies on: a resume needs the interrupted state verified, a restart needs COMPLETED. */
export const reliedOnStates: ReadonlySet<TaskState> = new Set<TaskState>([
  "TASK_STATE_INPUT_REQUIRED",
  "TASK_STATE_AUTH_REQUIRED",
  "TASK_STATE_COMPLETED",
]);

function violation(
  obs: TaskStateObserved,
  cardHash: string,
  skillId: string | null,
  kind: ViolationDraft["kind"],
  allowed: string[],
  why: string,
): ViolationDraft {
  return {
    type: "ContractViolation",
    workerId: obs.workerId,
    kind,
    serverTaskId: obs.serverTaskId,
    observed: obs.state,
    allowed,
    cardHash,
    skillId,
    detail: `${obs.observer} saw ${obs.rawState} via ${obs.via}; ${why}`,
  };
}

export function r1States(input: RuleInput): RuleOutput {
  const obs = input.observation;
  if (obs.type !== "TaskStateObserved" || obs.state === "TASK_STATE_UNSPECIFIED") return noOutput;
  const snap = input.capabilities.asOf(obs.workerId, obs.occurredAt);
  if (snap === undefined) return noOutput;
  const advertised = snap.advertisedStates.includes(obs.state);
  if (advertised && !reliedOnStates.has(obs.state)) return noOutput;
  const skillId = termsFor(input.state, obs.workerId, obs.serverTaskId)?.skillId ?? null;
  if (!advertised)
    return decided(
      unreported(input.state, [
        violation(
          obs,
          snap.cardHash,
          skillId,
          "STATE_NOT_ADVERTISED",
          snap.advertisedStates,
          "the card in force does not advertise it",
        ),
      ]),
    );
  const v = verifiedSkill(snap, skillId);
  if (v === undefined || v.states.includes(obs.state) || policyOf(input.policy, snap) !== "verify") return noOutput;
  return decided(
    unreported(input.state, [
      violation(
        obs,
        snap.cardHash,
        skillId,
        "STATE_NOT_VERIFIED",
        v.states,
        `the probe of skill ${skillId ?? "(none)"} of the card in force did not verify it`,
      ),
    ]),
  );
}
