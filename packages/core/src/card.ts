/**
 * Card interpretation: what an Agent Card advertises (A(W) in DESIGN §4).
 * Cards do not enumerate task states; workers declare them with this project's lifecycle extension.
 */
import type { SkillOutputModes, TaskState } from "@a2a-ledger/schemas";
import { normalizeTaskState, sortStates, specStates } from "./task-state.ts";

export const lifecycleExtensionUri = "urn:a2a-ledger:ext:task-lifecycle:v1";

export type TaskStoreClaim = "durable" | "ephemeral" | "unknown";

export interface AdvertisedCapabilities {
  vendor: string | null;
  taskStore: TaskStoreClaim;
  /** From the lifecycle extension, else every spec state. */
  states: TaskState[];
  /** Whether the card carries the lifecycle extension at all. */
  declaresLifecycle: boolean;
  defaultOutputModes: string[];
  /** Per skill: its own outputModes, or defaultOutputModes when it declares none. */
  skills: SkillOutputModes[];
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

function lifecycleExtension(card: Record<string, unknown>): Record<string, unknown> | null {
  const capabilities = card["capabilities"];
  if (!isRecord(capabilities)) return null;
  const extensions = capabilities["extensions"];
  if (!Array.isArray(extensions)) return null;
  const ext = extensions.find((e) => isRecord(e) && e["uri"] === lifecycleExtensionUri);
  if (!isRecord(ext)) return null;
  return isRecord(ext["params"]) ? ext["params"] : {};
}

function taskStoreClaim(value: unknown): TaskStoreClaim {
  return value === "durable" || value === "ephemeral" ? value : "unknown";
}

/** A(W) from a raw card (already parsed JSON). Tolerant: a malformed part of a card advertises nothing for that part. */
export function interpretCard(card: unknown): AdvertisedCapabilities {
  const c = isRecord(card) ? card : {};
  const provider = c["provider"];
  const vendor = isRecord(provider) && typeof provider["organization"] === "string" ? provider["organization"] : null;
  const ext = lifecycleExtension(c);
  const declared = ext === null ? null : strings(ext["states"]).map(normalizeTaskState);
  const states = declared === null ? [...specStates] : sortStates(declared.filter((s): s is TaskState => s !== null));
  const defaultOutputModes = strings(c["defaultOutputModes"]);
  const skills: SkillOutputModes[] = [];
  if (Array.isArray(c["skills"])) {
    for (const skill of c["skills"]) {
      if (!isRecord(skill) || typeof skill["id"] !== "string") continue;
      const own = Array.isArray(skill["outputModes"]) ? strings(skill["outputModes"]) : null;
      skills.push({ skillId: skill["id"], outputModes: own ?? [...defaultOutputModes] });
    }
  }
  return {
    vendor,
    taskStore: ext === null ? "unknown" : taskStoreClaim(ext["taskStore"]),
    states,
    declaresLifecycle: ext !== null,
    defaultOutputModes,
    skills,
  };
}

/** The output modes a card allows for a skill: the skill's own list, else the card default. */
export function outputModesFor(
  advertised: { advertisedOutputModes: SkillOutputModes[]; defaultOutputModes: string[] },
  skillId: string | null,
): string[] {
  if (skillId !== null) {
    const skill = advertised.advertisedOutputModes.find((s) => s.skillId === skillId);
    if (skill) return skill.outputModes;
  }
  return advertised.defaultOutputModes;
}
