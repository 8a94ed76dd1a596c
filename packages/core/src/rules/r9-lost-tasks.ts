/**
 * R9 for real tasks (default/3): a task last seen in an interrupted state (INPUT_REQUIRED,
 * AUTH_REQUIRED) that then answers TaskNotFound is the same evidence a lost parked canary is — the
 * worker does not keep interrupted tasks. When the card in force at the loss is the one the task was
 * last seen under, its interrupted states are revoked from every skill's V and the card is marked not
 * durable (a new snapshot, announced with CapabilitiesVerified; this also revokes trust, see policyOf:
 * default/3 judges the loss itself under verify, default/4 by the trust in force before it, see R4/R5);
 * under default/4 a task lost in any state that is not terminal is that evidence too when the card
 * claims a durable task store. When that card claimed a durable task store,
 * TASK_STORE_NOT_DURABLE is recorded. Only the first such loss under a card counts (the one that
 * revokes): later losses under it are the known fact again. A card that changed since the task was last seen is not judged by
 * what the worker did under the previous one (a new version may keep its tasks).
 * Runs before R4/R5, so the loss it judges and R6's choice already see the revoked V.
 */
import type { DecisionDraft } from "../decisions.ts";
import { canaryOf, taskOf } from "../correlation/state.ts";
import { isInterrupted } from "../task-state.ts";
import { snapshotRevokingInterrupted } from "../verification.ts";
import { noOutput, type RuleInput, type RuleOutput } from "./rule.ts";
import { unreported } from "./violations.ts";

export interface LostTaskOptions {
  /**
   * Which losses are evidence: a task last seen in an interrupted state (default/3), or also any task
   * not terminal lost under a card that claims a durable task store (default/4: a durable store loses no
   * task, so a trusted worker's loss in WORKING puts its next loss under verify too).
   */
  evidence: "interrupted" | "interrupted-or-durable-claim";
}

export function r9LostTasksWith(options: LostTaskOptions): (input: RuleInput) => RuleOutput {
  return (input) => judgeLostTask(input, options);
}

function judgeLostTask(input: RuleInput, options: LostTaskOptions): RuleOutput {
  const obs = input.observation;
  if (obs.type !== "TaskNotFoundObserved") return noOutput;
  if (canaryOf(input.state, obs.workerId, obs.serverTaskId) !== undefined) return noOutput;
  const task = taskOf(input.state, obs.workerId, obs.serverTaskId);
  if (task === undefined || task.terminal || task.lost || task.last === null) return noOutput;
  const last = task.last;
  const seenUnder = input.capabilities.asOf(obs.workerId, last.occurredAt);
  const current = input.capabilities.asOf(obs.workerId, obs.occurredAt);
  if (current === undefined || seenUnder === undefined || seenUnder.cardHash !== current.cardHash) return noOutput;
  const evidence =
    isInterrupted(last.state) ||
    (options.evidence === "interrupted-or-durable-claim" && current.taskStore === "durable");
  if (!evidence) return noOutput;
  const revoked = snapshotRevokingInterrupted(current, obs);
  // Only the first evidence against the card counts: once it is known not to keep interrupted tasks,
  // a later loss under it is that known fact again, not a new finding.
  if (revoked === undefined) return noOutput;
  const decisions: DecisionDraft[] = [];
  if (current.taskStore === "durable") {
    decisions.push(
      ...unreported(input.state, [
        {
          type: "ContractViolation",
          workerId: obs.workerId,
          kind: "TASK_STORE_NOT_DURABLE",
          serverTaskId: obs.serverTaskId,
          observed: `TaskNotFound (${obs.errorCode}) for a task last seen in ${last.state}`,
          allowed: ["durable"],
          cardHash: current.cardHash,
          detail: `the card claims a durable task store, but task ${obs.serverTaskId} of attempt ${task.attempt}, seen in ${last.state} by ${last.observer}, was lost`,
          causeEventIds: [last.eventId],
        },
      ]),
    );
  }
  decisions.push({
    type: "CapabilitiesVerified",
    workerId: obs.workerId,
    cardHash: revoked.cardHash,
    states: revoked.verifiedStates,
    outputModes: revoked.verifiedSkills.map((k) => ({ skillId: k.skillId ?? "*", outputModes: k.outputModes })),
    durable: false,
    skills: revoked.verifiedSkills,
    causeEventIds: [last.eventId],
  });
  return { decisions, capabilityUpdates: [revoked], cards: [] };
}
