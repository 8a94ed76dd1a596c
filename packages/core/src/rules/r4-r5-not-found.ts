/**
 * R4/R5, judged per server task — (workerId, serverTaskId) — on that task's own last state, never the
 * correlation's: another attempt's terminal state and observer clocks cannot silence a loss.
 * - R4: TaskNotFound for a task some observer saw terminal is a purge: no decision.
 * - R5: TaskNotFound for a task not terminal is a loss, and a loss always yields a decision: under trust
 *   TaskFailed; under verify (the default, and for any card the ledger has evidence against) TaskIndeterminate.
 *   A task already lost is the same loss (no second decision) until it is seen again.
 * - A TaskNotFound for a task id this correlation never saw is its own decision (UNSEEN_TASK_NOT_FOUND),
 *   never the loss of some other task — unless it answers a dispatch on that worker that has no task
 *   yet: then it is that dispatch's task, lost with no state seen. Parked canaries are R9's.
 */
import { openAttemptOn, supersededBy } from "../correlation/attempts.ts";
import { canaryOf, type CorrelationState, type TaskRecord, taskOf } from "../correlation/state.ts";
import { policyOf } from "../verification.ts";
import { decided, noOutput, type Rule, type RuleInput, type RuleOutput } from "./rule.ts";
import { unreported } from "./violations.ts";

/**
 * A task id never seen, on a worker with a dispatch of this correlation that has no task yet, is that
 * dispatch's task (its SendMessage answer was not observed): lost with no state seen.
 */
function answeringOpenDispatch(s: CorrelationState, workerId: string, serverTaskId: string): TaskRecord | undefined {
  const open = openAttemptOn(s, workerId);
  return open === undefined
    ? undefined
    : {
        workerId,
        serverTaskId,
        attempt: open.attempt,
        contextId: null,
        last: null,
        terminal: false,
        lost: false,
        artifacts: [],
      };
}

export interface NotFoundOptions {
  /** Whom a TaskNotFound for a task id the correlation never saw is recorded against: the worker (default/2) or the client that asked (default/3). */
  unseen: "worker" | "client";
  /**
   * Which table judges trust or verify for the loss: the one the rules before R4/R5 already extended
   * (default/2, default/3: a revocation the loss itself caused puts it under verify), or the one in force
   * before the loss (default/4: the trust in force before a loss governs it; the loss is evidence for what follows).
   */
  trustOf?: "after-evidence" | "before-the-loss";
}

export function r4r5NotFoundWith(options: NotFoundOptions): Rule {
  return (input) => judgeNotFound(input, options);
}

export const r4r5NotFound: Rule = r4r5NotFoundWith({ unseen: "worker" });

function judgeNotFound(input: RuleInput, options: NotFoundOptions): RuleOutput {
  const obs = input.observation;
  if (obs.type !== "TaskNotFoundObserved") return noOutput;
  const s = input.state;
  if (canaryOf(s, obs.workerId, obs.serverTaskId) !== undefined) return noOutput;
  const snap = input.capabilities.asOf(obs.workerId, obs.occurredAt);
  const judgedBy =
    options.trustOf === "before-the-loss" ? input.priorCapabilities.asOf(obs.workerId, obs.occurredAt) : snap;
  const task = taskOf(s, obs.workerId, obs.serverTaskId) ?? answeringOpenDispatch(s, obs.workerId, obs.serverTaskId);
  if (task === undefined && options.unseen === "client") {
    return decided(
      unreported(s, [
        {
          type: "ContractViolation",
          workerId: obs.workerId,
          kind: "CLIENT_UNKNOWN_TASK",
          serverTaskId: obs.serverTaskId,
          observed: `TaskNotFound (${obs.errorCode} on ${obs.method})`,
          cardHash: snap?.cardHash ?? null,
          detail: `${obs.observer} asked ${obs.workerId} for task ${obs.serverTaskId}, which no observer saw in this correlation: the client's mistake (or a probe with a made-up id), not the worker's violation, and not the loss of another task`,
        },
      ]),
    );
  }
  if (task === undefined) {
    return decided(
      unreported(s, [
        {
          type: "ContractViolation",
          workerId: obs.workerId,
          kind: "UNSEEN_TASK_NOT_FOUND",
          serverTaskId: obs.serverTaskId,
          observed: `TaskNotFound (${obs.errorCode} on ${obs.method})`,
          cardHash: snap?.cardHash ?? null,
          detail: `${obs.observer} asked ${obs.workerId} for task ${obs.serverTaskId}, which this correlation never saw; it is not taken as the loss of another task`,
        },
      ]),
    );
  }
  if (task.terminal || task.lost) return noOutput;

  const last = task.last;
  const lastState = last?.state ?? "TASK_STATE_UNSPECIFIED";
  const seen =
    last === null
      ? "no state was observed"
      : `its last observed state ${last.state} (seen by ${last.observer}) is not terminal`;
  const later = supersededBy(s, task.attempt);
  const superseded =
    later === undefined
      ? ""
      : `; attempt ${task.attempt} was already superseded by attempt ${later.attempt} on ${later.workerId}, which carries the task on`;
  const causes = last === null ? [] : [last.eventId];
  const what = `TaskNotFound (${obs.errorCode} on ${obs.method}) for ${obs.workerId}/${obs.serverTaskId} of attempt ${task.attempt} while ${seen}`;
  if (policyOf(input.policy, judgedBy) === "trust") {
    return decided([
      {
        type: "TaskFailed",
        workerId: obs.workerId,
        serverTaskId: obs.serverTaskId,
        lastState,
        reason:
          options.trustOf === "before-the-loss"
            ? `${what}; the worker was trusted before this loss (vendor ${judgedBy?.vendor}, durable task store, no evidence against it), so the loss is a failure; it is evidence for what follows${superseded}`
            : `${what}; the worker is trusted (vendor ${snap?.vendor}, durable task store, no evidence against it), so the loss is a failure${superseded}`,
        causeEventIds: causes,
      },
    ]);
  }
  return decided([
    {
      type: "TaskIndeterminate",
      workerId: obs.workerId,
      serverTaskId: obs.serverTaskId,
      lastState,
      lastObserver: last?.observer ?? "",
      attempt: task.attempt,
      reason: `${what}; under verify a lost task is indeterminate, not failed${superseded}`,
      causeEventIds: causes,
    },
  ]);
}
