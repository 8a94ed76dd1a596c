/**
 * Reading a default/1 (correlation/1) state as a correlation/2 state, so a reconciler upgraded to
 * default/2 continues from a changelog default/1 wrote. What default/1 did not keep is approximated:
 * its single last state belongs to the task it was seen on; other tasks have no last state; violation
 * keys of default/1 are not carried over (a violation default/1 reported may be reported once more).
 */
import type { CorrelationState as V1State } from "../v1/correlation-state.ts";
import { type CorrelationState, dedupeWindow, initialState, type TaskRecord } from "./state.ts";

export function fromV1(v1: V1State): CorrelationState {
  const s = initialState();
  s.correlationId = v1.correlationId;
  s.status = v1.status;
  s.recent = v1.seenEventIds.slice(-dedupeWindow);
  s.recentSet = s.recent.length > 32 ? new Set(s.recent) : null;
  for (const a of v1.attempts) {
    const outputs = v1.outputs.filter((o) => o.attempt === a.attempt);
    s.attempts.push({
      attempt: a.attempt,
      workerId: a.workerId,
      skillId: a.skillId,
      messageId: a.messageId,
      acceptedOutputModes: a.acceptedOutputModes,
      dispatchedAt: a.dispatchedAt,
      dispatchEventId: a.dispatchEventId,
      taskCount: a.serverTaskIds.length,
      artifactCount: outputs.length,
    });
    const mine: TaskRecord[] = [];
    for (const id of a.serverTaskIds) {
      const last =
        v1.lastState !== null && v1.lastState.serverTaskId === id && v1.lastState.workerId === a.workerId
          ? v1.lastState
          : null;
      mine.push({
        workerId: a.workerId,
        serverTaskId: id,
        attempt: a.attempt,
        contextId: null,
        last:
          last === null
            ? null
            : {
                state: last.state,
                rawState: last.rawState,
                observer: last.observer,
                occurredAt: last.occurredAt,
                eventId: last.eventId,
              },
        terminal: v1.terminalTaskIds.includes(id),
        lost: v1.lostTaskIds.includes(id),
        artifacts: [],
      });
    }
    // default/1 kept outputs per attempt, not per task: they go to the attempt's first task.
    s.tasks.push(...mine);
    const first = mine[0];
    outputs.forEach((o, i) =>
      first?.artifacts.push({
        artifactId: o.output,
        attempt: a.attempt,
        name: o.output,
        ordinal: i + 1,
        mediaTypes: o.mediaTypes,
        complete: true,
        eventId: o.eventId,
      }),
    );
  }
  for (const c of v1.parkedCanaries) s.canaries.push({ ...c, parkedAt: 0, lost: false });
  if (v1.loss !== null) s.loss = { ...v1.loss, outcome: v1.status === "failed" ? "failed" : "indeterminate" };
  return s;
}
