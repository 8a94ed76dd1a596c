/**
 * R10: the last observed state of a correlation is taken over all observers. "Last" is by the time the
 * observer saw it (occurredAt), not by arrival: an orchestrator that restarted and reports an older view
 * does not overwrite what a proxy saw later. A terminal state is absorbing for its server task, and
 * TASK_STATE_UNSPECIFIED (v0.3 `unknown`) says nothing, so it never replaces a known state.
 */
import type { TaskStateObserved } from "@a2a-ledger/schemas";
import type { LastState } from "./correlation-state.ts";
import { isTerminal } from "../task-state.ts";

export function nextLastState(current: LastState | null, obs: TaskStateObserved): LastState | null {
  if (obs.state === "TASK_STATE_UNSPECIFIED") return current;
  const seen: LastState = {
    state: obs.state,
    rawState: obs.rawState,
    observer: obs.observer,
    workerId: obs.workerId,
    serverTaskId: obs.serverTaskId,
    occurredAt: obs.occurredAt,
    eventId: obs.eventId,
  };
  if (current === null) return seen;
  if (current.serverTaskId === obs.serverTaskId && isTerminal(current.state) && !isTerminal(obs.state)) return current;
  return obs.occurredAt >= current.occurredAt ? seen : current;
}
