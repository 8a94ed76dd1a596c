/**
 * A2A TaskState: v1.0 ProtoJSON names are canonical; v0.3 spellings are accepted and normalized.
 * The raw spelling always travels beside the normalized state (TaskStateObserved.rawState).
 */
import type { TaskState } from "@a2a-ledger/schemas";
import { lookupOf, taskStateSpellings } from "./vocabulary.ts";

const spellings = lookupOf(taskStateSpellings);

/** The v1.0 state for any accepted spelling (see vocabulary.ts), or null when the spelling is not a task state. */
export function normalizeTaskState(raw: string): TaskState | null {
  return spellings(raw);
}

/** The lifecycle states a card can promise: every spec state except UNSPECIFIED. */
export const specStates: readonly TaskState[] = [
  "TASK_STATE_SUBMITTED",
  "TASK_STATE_WORKING",
  "TASK_STATE_INPUT_REQUIRED",
  "TASK_STATE_AUTH_REQUIRED",
  "TASK_STATE_COMPLETED",
  "TASK_STATE_FAILED",
  "TASK_STATE_CANCELED",
  "TASK_STATE_REJECTED",
];

export const terminalStates: ReadonlySet<TaskState> = new Set<TaskState>([
  "TASK_STATE_COMPLETED",
  "TASK_STATE_FAILED",
  "TASK_STATE_CANCELED",
  "TASK_STATE_REJECTED",
]);

export const interruptedStates: ReadonlySet<TaskState> = new Set<TaskState>([
  "TASK_STATE_INPUT_REQUIRED",
  "TASK_STATE_AUTH_REQUIRED",
]);

export const isTerminal = (state: TaskState): boolean => terminalStates.has(state);
export const isInterrupted = (state: TaskState): boolean => interruptedStates.has(state);

/** States sorted in the schema's symbol order, without duplicates: a stable form for records. */
export function sortStates(states: Iterable<TaskState>): TaskState[] {
  const order = (s: TaskState): number => (s === "TASK_STATE_UNSPECIFIED" ? -1 : specStates.indexOf(s));
  return [...new Set(states)].sort((a, b) => order(a) - order(b));
}
