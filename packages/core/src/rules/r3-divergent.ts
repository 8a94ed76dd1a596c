/**
 * R3: artifacts are reconciled by correlation id, not task id. When an artifact is complete (see
 * correlation/artifacts.ts: streamed chunks are one artifact) it is compared with the complete artifacts
 * of the correlation's *other* attempts that are the same output (same name when both are named, else
 * the same position); different media types are DIVERGENT_ARTIFACTS, reported once per output and pair
 * of attempts.
 */
import {
  artifactAfter,
  type OutputIdentity,
  outputLabel,
  sameMediaTypes,
  sameOutput,
} from "../correlation/artifacts.ts";
import { attemptFor, attemptNumberFor } from "../correlation/attempts.ts";
import { artifactOf, type CorrelationState, taskOf } from "../correlation/state.ts";
import type { ViolationDraft } from "../decisions.ts";
import { isTerminal } from "../task-state.ts";
import { decided, noOutput, type RuleInput, type RuleOutput } from "./rule.ts";
import { unreported } from "./violations.ts";

interface Judged extends OutputIdentity {
  workerId: string;
  serverTaskId: string;
  attempt: number;
  mediaTypes: readonly string[];
}

function divergences(state: CorrelationState, mine: Judged, cardHash: string | null, out: ViolationDraft[]): void {
  for (const task of state.tasks) {
    if (task.attempt === mine.attempt) continue;
    for (const other of task.artifacts) {
      if (
        !other.complete ||
        other.mediaTypes.length === 0 ||
        !sameOutput(mine, other) ||
        sameMediaTypes(mine.mediaTypes, other.mediaTypes)
      )
        continue;
      const [lo, hi] = other.attempt < mine.attempt ? [other.attempt, mine.attempt] : [mine.attempt, other.attempt];
      const output = outputLabel(mine, other);
      out.push({
        type: "ContractViolation",
        workerId: mine.workerId,
        kind: "DIVERGENT_ARTIFACTS",
        serverTaskId: mine.serverTaskId,
        observed: mine.mediaTypes.join(", "),
        allowed: [...other.mediaTypes],
        cardHash,
        output,
        attempts: [lo, hi],
        detail: `output ${output} is ${mine.mediaTypes.join(", ")} in attempt ${mine.attempt} (${mine.workerId}/${mine.serverTaskId}) and ${other.mediaTypes.join(", ")} in attempt ${other.attempt} (${task.workerId}/${task.serverTaskId})`,
        causeEventIds: [other.eventId],
      });
    }
  }
}

export function r3Divergent(input: RuleInput): RuleOutput {
  const obs = input.observation;
  const state = input.state;
  if (obs.type === "ArtifactEmitted") {
    const task = taskOf(state, obs.workerId, obs.serverTaskId);
    const existing = task === undefined ? undefined : artifactOf(task, obs.artifactId);
    const after = artifactAfter(
      existing,
      obs,
      (attemptFor(state, obs.workerId, obs.serverTaskId)?.artifactCount ?? 0) + 1,
      task?.terminal ?? false,
    );
    const grew = existing !== undefined && after.mediaTypes !== existing.mediaTypes;
    if (!after.complete || after.mediaTypes.length === 0 || (after.wasComplete && !grew)) return noOutput;
    const out: ViolationDraft[] = [];
    const cardHash = input.capabilities.asOf(obs.workerId, obs.occurredAt)?.cardHash ?? null;
    const attempt = task?.attempt ?? attemptNumberFor(state, obs.workerId, obs.serverTaskId);
    divergences(
      state,
      {
        name: after.name,
        ordinal: after.ordinal,
        mediaTypes: after.mediaTypes,
        workerId: obs.workerId,
        serverTaskId: obs.serverTaskId,
        attempt,
      },
      cardHash,
      out,
    );
    return decided(unreported(state, out));
  }
  if (obs.type === "TaskStateObserved" && isTerminal(obs.state)) {
    // A task that ended completes the streamed artifacts whose last chunk never came.
    const task = taskOf(state, obs.workerId, obs.serverTaskId);
    if (task === undefined || task.terminal || task.artifacts.length === 0) return noOutput;
    const out: ViolationDraft[] = [];
    const cardHash = input.capabilities.asOf(obs.workerId, obs.occurredAt)?.cardHash ?? null;
    for (const a of task.artifacts) {
      if (!a.complete && a.mediaTypes.length > 0)
        divergences(
          state,
          {
            name: a.name,
            ordinal: a.ordinal,
            mediaTypes: a.mediaTypes,
            workerId: task.workerId,
            serverTaskId: task.serverTaskId,
            attempt: a.attempt,
          },
          cardHash,
          out,
        );
    }
    return decided(unreported(state, out));
  }
  return noOutput;
}
