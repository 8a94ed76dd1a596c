/**
 * What a TaskNotFound means, from the last state known of the task (pure): not terminal → indeterminate
 * (lost), terminal → purged, none known → unknown-task. The same split as the rules' R4/R5.
 */
import { isTerminal } from "@a2a-ledger/core";
import type { TaskState } from "@a2a-ledger/schemas";
import type { NotFoundOutcome } from "./results.ts";

export interface NotFoundFacts {
  correlationId: string;
  workerId: string;
  serverTaskId: string;
  errorCode: string;
  /** Null: the task was never seen. UNSPECIFIED (a state outside the spec) counts as not terminal. */
  lastState: TaskState | null;
}

export function notFoundVerdict(facts: NotFoundFacts): NotFoundOutcome {
  const { lastState, ...rest } = facts;
  if (lastState === null) return { kind: "unknown-task", ...rest };
  return isTerminal(lastState) ? { kind: "purged", ...rest, lastState } : { kind: "indeterminate", ...rest, lastState };
}
