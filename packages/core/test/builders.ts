/** Builders for observations in tests: ingest-JSON in, parsed (and thereby schema-checked) Observation out. */
import type { CardSignature, CardStanding, Observation, TaskState } from "@a2a-ledger/schemas";
import { lifecycleExtensionUri } from "../src/card.ts";
import { cardHash } from "../src/card-hash.ts";
import { parseObservation } from "../src/ingest-json.ts";

export interface CardSpec {
  org: string;
  states?: string[];
  taskStore?: "durable" | "ephemeral";
  skills?: { id: string; outputModes?: string[] }[];
  defaultOutputModes?: string[];
  version?: string;
}

export function agentCard(spec: CardSpec): Record<string, unknown> {
  return {
    name: `${spec.org} agent`,
    version: spec.version ?? "1.0.0",
    provider: { organization: spec.org, url: `https://${spec.org.toLowerCase()}.example` },
    capabilities: {
      streaming: true,
      extensions: spec.states
        ? [{ uri: lifecycleExtensionUri, params: { states: spec.states, taskStore: spec.taskStore ?? "ephemeral" } }]
        : [],
    },
    defaultOutputModes: spec.defaultOutputModes ?? ["text/plain"],
    skills: (spec.skills ?? [{ id: "summarize" }]).map((s) => ({
      id: s.id,
      name: s.id,
      ...(s.outputModes ? { outputModes: s.outputModes } : {}),
    })),
  };
}

export function parsed(input: Record<string, unknown>): Observation {
  const r = parseObservation(input);
  if (!r.ok) throw new Error(`bad test observation ${JSON.stringify(input)}: ${JSON.stringify(r.issues)}`);
  return r.observation;
}

/** A log writer with deterministic event ids (`<prefix>1`, `<prefix>2`, …). */
export function events(prefix = "e") {
  let n = 0;
  const id = () => `${prefix}${++n}`;
  return {
    card: (
      workerId: string,
      card: Record<string, unknown>,
      o: {
        at: number;
        corr?: string;
        maxAge?: number | null;
        observer?: string;
        /** What ingest stamped: the signature check and the poster's standing (left out: null, as without keys and tokens). */
        signature?: CardSignature;
        keyId?: string;
        standing?: CardStanding;
      },
    ) =>
      parsed({
        type: "AgentCardObserved",
        eventId: id(),
        correlationId: o.corr ?? `probe-${workerId}`,
        occurredAt: o.at,
        observer: o.observer ?? "dispatcher",
        workerId,
        cardUrl: `https://${workerId}.example/.well-known/agent-card.json`,
        card,
        cacheMaxAgeSeconds: o.maxAge ?? null,
        ...(o.signature === undefined ? {} : { signature: o.signature }),
        ...(o.keyId === undefined ? {} : { signatureKeyId: o.keyId }),
        ...(o.standing === undefined ? {} : { standing: o.standing }),
      }),
    probe: (
      workerId: string,
      cardHash: string,
      o: {
        at: number;
        corr?: string;
        states: TaskState[];
        reobservable?: TaskState[];
        modes: string[];
        durable?: boolean | null;
        canaries?: { serverTaskId: string; state: string }[];
        skillId?: string;
      },
    ) =>
      parsed({
        type: "ProbeCompleted",
        eventId: id(),
        correlationId: o.corr ?? `probe-${workerId}`,
        occurredAt: o.at,
        observer: "dispatcher",
        workerId,
        cardHash,
        skillId: o.skillId ?? "summarize",
        statesObserved: o.states,
        reobservable: o.reobservable ?? o.states,
        emittedModes: o.modes,
        durable: o.durable ?? null,
        parkedCanaries: o.canaries ?? [],
      }),
    dispatch: (
      corr: string,
      workerId: string,
      o: {
        at: number;
        accepted?: string[];
        skillId?: string | null;
        attempt?: number;
        messageId?: string;
        cardHash?: string;
        cardFetchedAt?: number;
        observer?: string;
      },
    ) =>
      parsed({
        type: "TaskDispatched",
        eventId: id(),
        correlationId: corr,
        occurredAt: o.at,
        observer: o.observer ?? "orchestrator",
        workerId,
        skillId: o.skillId === undefined ? "summarize" : o.skillId,
        messageId: o.messageId ?? `${corr}-m${o.attempt ?? 1}`,
        acceptedOutputModes: o.accepted ?? [],
        ...(o.cardHash ? { cardHash: o.cardHash } : {}),
        ...(o.cardFetchedAt !== undefined ? { cardFetchedAt: o.cardFetchedAt } : {}),
        attempt: o.attempt ?? 1,
      }),
    state: (
      corr: string,
      workerId: string,
      serverTaskId: string,
      state: string,
      o: { at: number; observer?: string; via?: string },
    ) =>
      parsed({
        type: "TaskStateObserved",
        eventId: id(),
        correlationId: corr,
        occurredAt: o.at,
        observer: o.observer ?? "orchestrator",
        workerId,
        serverTaskId,
        state,
        via: o.via ?? "get",
      }),
    notFound: (corr: string, workerId: string, serverTaskId: string, o: { at: number; observer?: string }) =>
      parsed({
        type: "TaskNotFoundObserved",
        eventId: id(),
        correlationId: corr,
        occurredAt: o.at,
        observer: o.observer ?? "orchestrator",
        workerId,
        serverTaskId,
        method: "GetTask",
        errorCode: "-32001",
      }),
    artifact: (
      corr: string,
      workerId: string,
      serverTaskId: string,
      o: {
        at: number;
        name?: string | null;
        artifactId?: string;
        mediaTypes: string[];
        observer?: string;
        append?: boolean;
        lastChunk?: boolean | null;
      },
    ) =>
      parsed({
        type: "ArtifactEmitted",
        eventId: id(),
        correlationId: corr,
        occurredAt: o.at,
        observer: o.observer ?? "orchestrator",
        workerId,
        serverTaskId,
        artifactId: o.artifactId ?? `${serverTaskId}-a`,
        name: o.name === undefined ? "summary" : o.name,
        parts: o.mediaTypes.map((m) => ({ kind: "TEXT", mediaType: m, sizeBytes: 10 })),
        append: o.append ?? false,
        lastChunk: o.lastChunk ?? null,
      }),
    /** An operator's resolution (`a2a-ledger resolve`), posted by `operator:alice` unless told. */
    resolve: (
      corr: string,
      action: "FAIL" | "REDISPATCH" | "RESTART",
      o: { at: number; worker?: string; reason?: string; by?: string; principal?: string },
    ) =>
      parsed({
        type: "OperatorResolved",
        eventId: id(),
        correlationId: corr,
        occurredAt: o.at,
        observer: o.by ?? "operator:alice",
        workerId: o.worker ?? null,
        action,
        reason: o.reason ?? "the customer asked",
        ...(o.principal === undefined ? {} : { principal: o.principal }),
      }),
  };
}

/** The rule specs' mesh (their default/3 and default/4 blocks'): a four-state lifecycle, one skill. */
export const all: TaskState[] = [
  "TASK_STATE_SUBMITTED",
  "TASK_STATE_WORKING",
  "TASK_STATE_INPUT_REQUIRED",
  "TASK_STATE_COMPLETED",
];
export const noInterrupt: TaskState[] = ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED"];
export const lifecycle = ["submitted", "working", "input-required", "completed", "failed"];
export const skills = [{ id: "summarize", outputModes: ["text/plain"] }];

/** Cards and probes: each worker verifies `states` for skill summarize, emitting text/plain. */
export function probed(
  e: ReturnType<typeof events>,
  workers: Record<string, { states: TaskState[]; org?: string; taskStore?: CardSpec["taskStore"] }>,
  from = 1,
) {
  const out = [];
  let at = from;
  for (const [w, o] of Object.entries(workers)) {
    const card = agentCard({
      org: o.org ?? `Org-${w}`,
      states: lifecycle,
      skills,
      ...(o.taskStore === undefined ? {} : { taskStore: o.taskStore }),
    });
    out.push(
      e.card(w, card, { at: at++ }),
      e.probe(w, cardHash(card), { at: at++, states: o.states, modes: ["text/plain"] }),
    );
  }
  return out;
}

/**
 * The default/2 specs' mesh: three probed workers. w1 (emitting application/json) and w2 (text/plain) keep
 * nothing interrupted; w3 (text/plain, a durable store) verifies input-required, for the skill `w3Skill`
 * names (summarize unless it names another; its card lists summarize and translate).
 */
export function mesh(e: ReturnType<typeof events>, o: { w3Skill?: string } = {}) {
  const w1 = agentCard({
    org: "One",
    states: lifecycle,
    skills: [{ id: "summarize", outputModes: ["application/json"] }],
  });
  const w2 = agentCard({ org: "Two", states: lifecycle, skills: [{ id: "summarize", outputModes: ["text/plain"] }] });
  const w3 = agentCard({
    org: "Three",
    states: lifecycle,
    taskStore: "durable",
    skills: [
      { id: "summarize", outputModes: ["text/plain"] },
      { id: "translate", outputModes: ["text/plain"] },
    ],
  });
  return [
    e.card("w1", w1, { at: 1 }),
    e.card("w2", w2, { at: 2 }),
    e.card("w3", w3, { at: 3 }),
    e.probe("w1", cardHash(w1), { at: 10, states: noInterrupt, modes: ["application/json"] }),
    e.probe("w2", cardHash(w2), { at: 11, states: noInterrupt, modes: ["text/plain"] }),
    e.probe("w3", cardHash(w3), {
      at: 12,
      states: all,
      modes: ["text/plain"],
      skillId: o.w3Skill ?? "summarize",
      durable: true,
    }),
  ];
}
