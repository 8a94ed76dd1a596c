/**
 * The verified card: a worker's card in force with what the ledger verified in place of what it
 * advertises — the task-lifecycle extension's states and task store, each skill's output modes — never
 * a state or a mode V (the capability snapshot in force) lacks. A skill no probe of this card verified
 * is left out (an empty outputModes would fall back to the card's defaults); the card's defaults keep
 * only modes verified for some skill. With it: the RFC 6901 pointer diff against the advertised card, the
 * snapshot's validFrom, and the evidence behind each removal (this card's probes, lost parked canaries
 * and, under default/3, real tasks lost in an interrupted state).
 */
import { createHash } from "node:crypto";
import { diffCards, lifecycleExtensionUri } from "@a2a-ledger/core";
import type { CapabilitySnapshot, CardSignature, FieldChange, TaskState } from "@a2a-ledger/schemas";
import type { ProbeRow } from "./rows.ts";

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** TASK_STATE_INPUT_REQUIRED → input-required, the spelling cards use in the lifecycle extension. */
const cardSpelling = (s: TaskState): string =>
  s
    .replace(/^TASK_STATE_/, "")
    .toLowerCase()
    .replace(/_/g, "-");

export interface LostCanary {
  serverTaskId: string;
  state: string;
  probeEventId: string;
  lostAt: number;
  lostEventId: string | null;
}

/**
 * A real task lost in an interrupted state under the card in force, which the rules took as evidence
 * against its interrupted states (default/3's R9 for tasks: the CapabilitiesVerified that revoked them).
 */
export interface LostTask {
  correlationId: string;
  serverTaskId: string;
  /** The interrupted state it was last seen in. */
  state: string;
  lastSeenEventId: string;
  lostAt: number;
  lostEventId: string;
  /** The CapabilitiesVerified decision that revoked the card's interrupted states. */
  decisionId: string;
}

export interface Evidence {
  /** The probes of this card (of the skill, for a skill's path) that verified what is kept: what was removed was not seen. */
  probes: {
    eventId: string;
    occurredAt: string;
    skillId: string | null;
    statesObserved: string[];
    reobservable: string[];
    emittedModes: string[];
    durable: boolean | null;
  }[];
  /** Parked canaries lost after a restart: they revoke the interrupted states and durability. */
  lostCanaries: {
    serverTaskId: string;
    state: string;
    probeEventId: string;
    lostAt: string;
    lostEventId: string | null;
  }[];
  /** Real tasks lost in an interrupted state under this card (default/3): they revoke the same. */
  lostTasks: (Omit<LostTask, "lostAt"> & { lostAt: string })[];
}

/** Whether V holds anything for the card in force: a probe verified at least one skill (or, per card, the card). */
export const probed = (s: CapabilitySnapshot): boolean => s.verified || s.verifiedSkills.length > 0;

function verifiedOf(s: CapabilitySnapshot, skillId: string | null) {
  for (const v of s.verifiedSkills) if (v.skillId === skillId) return v;
  return s.verified && s.verifiedSkills.length === 0
    ? { skillId, states: s.verifiedStates, outputModes: s.verifiedOutputModes }
    : undefined;
}

export function verifiedCard(advertised: unknown, s: CapabilitySnapshot): Record<string, unknown> {
  const card = structuredClone(isRecord(advertised) ? advertised : {}) as Record<string, unknown>;
  const skills = Array.isArray(card["skills"]) ? card["skills"] : [];
  const kept: { id: string; states: TaskState[]; outputModes: string[] }[] = [];
  card["skills"] = skills.flatMap((skill) => {
    if (!isRecord(skill) || typeof skill["id"] !== "string") return [];
    const v = verifiedOf(s, skill["id"]);
    if (v === undefined) return [];
    kept.push({ id: skill["id"], states: v.states, outputModes: v.outputModes });
    return [{ ...skill, outputModes: [...v.outputModes] }];
  });
  const anyMode = new Set(kept.flatMap((k) => k.outputModes));
  if (Array.isArray(card["defaultOutputModes"]))
    card["defaultOutputModes"] = card["defaultOutputModes"].filter((m) => typeof m === "string" && anyMode.has(m));
  // The extension is card-wide: it lists the states every kept skill verified, and each skill's own below.
  const common =
    kept.length === 0
      ? []
      : kept.reduce<TaskState[]>(
          (acc, k) => acc.filter((x) => k.states.includes(x)),
          [...(kept[0] as { states: TaskState[] }).states],
        );
  const capabilities = isRecord(card["capabilities"]) ? card["capabilities"] : {};
  const extensions = Array.isArray(capabilities["extensions"]) ? capabilities["extensions"] : [];
  const params = {
    states: common.map(cardSpelling),
    // Durability as verified; with no evidence either way a durable claim becomes unknown, a weaker claim stays.
    taskStore:
      s.durable === true
        ? "durable"
        : s.durable === false
          ? "ephemeral"
          : s.taskStore === "durable"
            ? "unknown"
            : s.taskStore,
    skills: kept.map((k) => ({ id: k.id, states: k.states.map(cardSpelling) })),
  };
  const at = extensions.findIndex((e) => isRecord(e) && e["uri"] === lifecycleExtensionUri);
  const extension = {
    ...(at >= 0 && isRecord(extensions[at])
      ? (extensions[at] as Record<string, unknown>)
      : { uri: lifecycleExtensionUri }),
    params,
  };
  card["capabilities"] = {
    ...capabilities,
    extensions: at >= 0 ? extensions.map((e, i) => (i === at ? extension : e)) : [...extensions, extension],
  };
  // A2A card signatures sign the card as the worker advertised it; kept here they would no longer verify.
  delete card["signatures"];
  return card;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** The evidence behind a change at `path`: the card's probes (of the skill, under /skills/i), its lost canaries and lost tasks (under the extension). */
function evidenceFor(
  path: string,
  advertised: unknown,
  probes: readonly ProbeRow[],
  lost: readonly LostCanary[],
  lostTasks: readonly LostTask[],
): Evidence {
  const skillAt = /^\/skills\/(\d+)(\/|$)/.exec(path);
  const skills = isRecord(advertised) && Array.isArray(advertised["skills"]) ? advertised["skills"] : [];
  const skill = skillAt === null ? undefined : skills[Number(skillAt[1])];
  const skillId = isRecord(skill) && typeof skill["id"] === "string" ? skill["id"] : undefined;
  const relevant = skillId === undefined ? probes : probes.filter((p) => p.skillId === skillId);
  return {
    probes: relevant.map((p) => ({
      eventId: p.eventId,
      occurredAt: iso(p.occurredAt),
      skillId: p.skillId,
      statesObserved: p.statesObserved,
      reobservable: p.reobservable,
      emittedModes: p.emittedModes,
      durable: p.durable,
    })),
    lostCanaries:
      path.startsWith("/capabilities/") || path === "/defaultOutputModes"
        ? lost.map((c) => ({ ...c, lostAt: iso(c.lostAt) }))
        : [],
    lostTasks: path.startsWith("/capabilities/") ? lostTasks.map((t) => ({ ...t, lostAt: iso(t.lostAt) })) : [],
  };
}

export interface VerifiedCardView {
  workerId: string;
  cardHash: string;
  validFrom: string;
  /** The signature status of the card in force as ingest recorded it (VERIFIED, UNSIGNED, INVALID, UNKNOWN_KEY); null: not checked. */
  signature: CardSignature | null;
  card: Record<string, unknown>;
  diff: (FieldChange & { evidence?: Evidence })[];
  etag: string;
  cacheControl: string;
}

/** The view of GET /v1/workers/:id/verified-card; `probes` are this card's, `lost` its lost parked canaries, `lostTasks` its real tasks lost as evidence. */
export function verifiedCardView(
  s: CapabilitySnapshot,
  advertised: unknown,
  probes: readonly ProbeRow[],
  lost: readonly LostCanary[],
  lostTasks: readonly LostTask[] = [],
): VerifiedCardView {
  const card = verifiedCard(advertised, s);
  const diff = diffCards(advertised, card).map((c) =>
    c.before === null || c.path.startsWith("/signatures")
      ? c
      : { ...c, evidence: evidenceFor(c.path, advertised, probes, lost, lostTasks) },
  );
  const tag = createHash("sha256")
    .update(`${s.workerId}\n${s.cardHash}\n${s.causeEventId}\n${s.validFrom}`)
    .digest("base64url")
    .slice(0, 27);
  return {
    workerId: s.workerId,
    cardHash: s.cardHash,
    validFrom: iso(s.validFrom),
    signature: s.signature ?? null,
    card,
    diff,
    etag: `"${tag}"`,
    cacheControl: s.cacheMaxAgeSeconds === null ? "no-cache" : `max-age=${s.cacheMaxAgeSeconds}`,
  };
}
