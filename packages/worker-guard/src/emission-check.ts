/**
 * The guard's rule, pure: may a worker emit this status or this artifact under the card in force now?
 * The card's states come from the lifecycle extension (`urn:a2a-ledger:ext:task-lifecycle:v1`), else
 * every spec state; a skill's output modes are its own `outputModes`, else the card's
 * `defaultOutputModes`, exactly as the ledger reads a card (`interpretCard`), so that what the guard
 * lets through the ledger's R1/R2 do not flag as not advertised, and the other way round:
 *
 * - a request that names no skill is held to the card's default output modes;
 * - a skill the card does not list is not judged (the ledger calls that SKILL_NOT_ADVERTISED at
 *   dispatch), nor are parts that declare no media type;
 * - a state outside the spec (UNSPECIFIED, or a spelling the spec does not know) is never advertised.
 */
import { interpretCard, mediaTypeAllowed, normalizeTaskState } from "@a2a-ledger/core";
import type { PartKind, TaskState } from "@a2a-ledger/schemas";

export interface PartSummary {
  kind: PartKind;
  mediaType: string | null;
  sizeBytes: number;
}

export type Emission =
  | { emission: "STATUS"; serverTaskId: string; contextId: string | null; rawState: string }
  | { emission: "ARTIFACT"; serverTaskId: string; contextId: string | null; artifactId: string; parts: PartSummary[] };

export type Verdict =
  | { allowed: true }
  | { allowed: false; kind: "STATE_NOT_ADVERTISED"; state: TaskState | null; rawState: string; allowedValues: string[] }
  | { allowed: false; kind: "OUTPUT_MODE_NOT_ADVERTISED"; refusedModes: string[]; allowedValues: string[] };

const allowed: Verdict = { allowed: true };

/** `card` is the Agent Card as ProtoJSON (what `/.well-known/agent-card.json` serves). */
export function checkEmission(card: unknown, emission: Emission, skillId: string | null): Verdict {
  const advertised = interpretCard(card);
  if (emission.emission === "STATUS") {
    const state = normalizeTaskState(emission.rawState);
    if (state !== null && state !== "TASK_STATE_UNSPECIFIED" && advertised.states.includes(state)) return allowed;
    return {
      allowed: false,
      kind: "STATE_NOT_ADVERTISED",
      state,
      rawState: emission.rawState,
      allowedValues: [...advertised.states],
    };
  }
  let modes: string[];
  if (skillId === null) modes = advertised.defaultOutputModes;
  else {
    const skill = advertised.skills.find((s) => s.skillId === skillId);
    if (skill === undefined) return allowed;
    modes = skill.outputModes;
  }
  const refused = [
    ...new Set(
      emission.parts.map((p) => p.mediaType).filter((m): m is string => m !== null && !mediaTypeAllowed(m, modes)),
    ),
  ];
  return refused.length === 0
    ? allowed
    : { allowed: false, kind: "OUTPUT_MODE_NOT_ADVERTISED", refusedModes: refused, allowedValues: [...modes] };
}
