/**
 * R3: artifacts are reconciled by correlation id, not task id. When an artifact is complete (see
 * correlation/artifacts.ts: streamed chunks are one artifact) it is compared with the complete artifacts
 * of the correlation's *other* attempts that are the same output (same name when both are named, else
 * the same position); different media types are DIVERGENT_ARTIFACTS, reported once per output and pair
 * of attempts.
 */
import type { TaskState } from "@a2a-ledger/schemas";
import { artifactAfter, type OutputIdentity, outputLabel, sameMediaTypes, sameOutput } from "../correlation/artifacts.ts";
import { attemptFor } from "../correlation/attempts.ts";
import { artifactKey, type CorrelationState, taskKey } from "../correlation/state.ts";
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

function divergences(state: CorrelationState, mine: Judged, cardHash: string | null): ViolationDraft[] {
  const out: ViolationDraft[] = [];
  for (const other of state.artifacts.values()) {
    if (other.attempt === mine.attempt || !other.complete || other.mediaTypes.length === 0) continue;
    if (!sameOutput(mine, other) || sameMediaTypes(mine.mediaTypes, other.mediaTypes)) continue;
    const [lo, hi] = other.attempt < mine.attempt ? [other.attempt, mine.attempt] : [mine.attempt, other.attempt];
    const output = outputLabel(mine, other);
    out.push({
      type: "ContractViolation",
      workerId: mine.workerId,
      kind: "DIVERGENT_ARTIFACTS",
      serverTaskId: mine.serverTaskId,
      observed: mine.mediaTypes.join(", "),
      allowed: other.mediaTypes,
      cardHash,
      output,
      attempts: [lo, hi],
      detail: `output ${output} is ${mine.mediaTypes.join(", ")} in attempt ${mine.attempt} (${mine.workerId}/${mine.serverTaskId}) and ${other.mediaTypes.join(", ")} in attempt ${other.attempt} (${other.workerId}/${other.serverTaskId})`,
      causeEventIds: [other.eventId],
    });
  }
  return out;
}

export function r3Divergent(input: RuleInput): RuleOutput {
  const obs = input.observation;
  const state = input.state;
  if (obs.type === "ArtifactEmitted") {
    const task = state.tasks.get(taskKey(obs.workerId, obs.serverTaskId));
    const ref = attemptFor(state, obs.workerId, obs.serverTaskId);
    const existing = state.artifacts.get(artifactKey(obs.workerId, obs.serverTaskId, obs.artifactId));
    const after = artifactAfter(existing, obs, (ref.record?.artifactCount ?? 0) + 1, task?.terminal ?? false);
    const grew = existing !== undefined && after.mediaTypes !== existing.mediaTypes;
    if (!after.complete || after.mediaTypes.length === 0 || (after.wasComplete && !grew)) return noOutput;
    const cardHash = input.capabilities.asOf(obs.workerId, obs.occurredAt)?.cardHash ?? null;
    return decided(unreported(state, divergences(state, { ...after, workerId: obs.workerId, serverTaskId: obs.serverTaskId, attempt: ref.attempt }, cardHash)));
  }
  if (obs.type === "TaskStateObserved" && isTerminal(obs.state as TaskState)) {
    // A task that ended completes the streamed artifacts whose last chunk never came.
    const task = state.tasks.get(taskKey(obs.workerId, obs.serverTaskId));
    if (task === undefined || task.terminal) return noOutput;
    const cardHash = input.capabilities.asOf(obs.workerId, obs.occurredAt)?.cardHash ?? null;
    const out: ViolationDraft[] = [];
    for (const a of state.artifacts.values()) {
      if (a.workerId !== task.workerId || a.serverTaskId !== task.serverTaskId || a.complete || a.mediaTypes.length === 0) continue;
      out.push(...divergences(state, a, cardHash));
    }
    return decided(unreported(state, out));
  }
  return noOutput;
}
