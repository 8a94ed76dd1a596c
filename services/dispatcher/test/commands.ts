/** A re-dispatch command as the reconciler writes it: W9 lost the task, W1's skill `answer` is to take it. */
import type { Decision } from "@a2a-ledger/schemas";

export function redispatchCommand(name: string): Extract<Decision, { type: "RedispatchCommanded" }> {
  return {
    type: "RedispatchCommanded",
    decisionId: `lost-${name}:RedispatchCommanded:0`,
    correlationId: `task-${name}`,
    causeEventIds: [`lost-${name}`],
    rulesVersion: "default/2",
    policyVersion: null,
    decidedAt: Date.now(),
    workerId: "W9",
    targetWorkerId: "W1",
    fromServerTaskId: "w9-task",
    skillId: "answer",
    attempt: 2,
    resumeState: null,
    acceptedOutputModes: ["application/json"],
    candidates: [],
  };
}
