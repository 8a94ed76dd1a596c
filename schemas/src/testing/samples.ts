/**
 * One realistic record of every event type, for tests across the project.
 */
import type {
  Decision,
  DecisionType,
  Observation,
  ObservationType,
  StateRecord,
  StateRecordType,
} from "../generated/types.ts";

const at = Date.UTC(2026, 10, 30, 12, 0, 0);
const observed = { correlationId: "corr-1", occurredAt: at, observer: "orchestrator-1", workerId: "worker-a" };
const decided = {
  correlationId: "corr-1",
  causeEventIds: ["ev-9"],
  rulesVersion: "ledger-default@1",
  decidedAt: at,
  workerId: "worker-a",
  policyVersion: 1,
};
const card = {
  name: "Summarizer",
  provider: { organization: "VendorA" },
  defaultOutputModes: ["text/markdown"],
  skills: [{ id: "summarize" }],
};

const observations: { [T in ObservationType]: Extract<Observation, { type: T }> } = {
  AgentCardObserved: {
    type: "AgentCardObserved",
    eventId: "ev-1",
    ...observed,
    cardUrl: "http://127.0.0.1:4000/.well-known/agent-card.json",
    card: JSON.stringify(card),
    cardHash: "a".repeat(64),
    cacheMaxAgeSeconds: 3600,
    etag: 'W/"1"',
  },
  TaskDispatched: {
    type: "TaskDispatched",
    eventId: "ev-2",
    ...observed,
    skillId: "summarize",
    messageId: "msg-1",
    acceptedOutputModes: ["text/markdown", "application/json"],
    cardHash: "a".repeat(64),
    cardFetchedAt: at - 1000,
    attempt: 1,
  },
  TaskStateObserved: {
    type: "TaskStateObserved",
    eventId: "ev-3",
    ...observed,
    serverTaskId: "task-1",
    contextId: "ctx-1",
    state: "TASK_STATE_INPUT_REQUIRED",
    rawState: "input-required",
    via: "GET",
  },
  TaskNotFoundObserved: {
    type: "TaskNotFoundObserved",
    eventId: "ev-4",
    ...observed,
    serverTaskId: "task-1",
    method: "GetTask",
    errorCode: "-32001",
  },
  ArtifactEmitted: {
    type: "ArtifactEmitted",
    eventId: "ev-5",
    ...observed,
    serverTaskId: "task-2",
    artifactId: "art-1",
    name: "summary",
    parts: [{ kind: "TEXT", mediaType: "text/html", sizeBytes: 120 }],
    append: true,
    lastChunk: true,
  },
  ProbeCompleted: {
    type: "ProbeCompleted",
    eventId: "ev-6",
    ...observed,
    cardHash: "a".repeat(64),
    skillId: "summarize",
    statesObserved: ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_INPUT_REQUIRED"],
    reobservable: ["TASK_STATE_WORKING"],
    emittedModes: ["text/markdown"],
    durable: false,
    parkedCanaries: [{ serverTaskId: "canary-1", state: "TASK_STATE_INPUT_REQUIRED" }],
  },
  EmissionRefused: {
    type: "EmissionRefused",
    eventId: "ev-7",
    ...observed,
    observer: "guard:worker-a",
    serverTaskId: "task-2",
    contextId: "ctx-1",
    skillId: "summarize",
    emission: "ARTIFACT",
    kind: "OUTPUT_MODE_NOT_ADVERTISED",
    state: null,
    rawState: null,
    artifactId: "art-2",
    parts: [{ kind: "TEXT", mediaType: "text/html", sizeBytes: 120 }],
    allowed: ["text/markdown"],
    cardHash: "a".repeat(64),
  },
};

const decisions: { [T in DecisionType]: Extract<Decision, { type: T }> } = {
  ContractViolation: {
    type: "ContractViolation",
    decisionId: "d-1",
    ...decided,
    kind: "OUTPUT_MODE_NOT_ADVERTISED",
    serverTaskId: "task-2",
    observed: "text/html",
    allowed: ["text/markdown"],
    cardHash: "a".repeat(64),
    detail: "artifact art-1 in text/html",
    skillId: "summarize",
    output: "summary",
    attempts: [2],
  },
  TaskIndeterminate: {
    type: "TaskIndeterminate",
    decisionId: "d-2",
    ...decided,
    serverTaskId: "task-1",
    lastState: "TASK_STATE_INPUT_REQUIRED",
    lastObserver: "proxy-1",
    reason: "TaskNotFound while input-required",
    attempt: 1,
  },
  TaskFailed: {
    type: "TaskFailed",
    decisionId: "d-3",
    ...decided,
    serverTaskId: "task-1",
    lastState: "TASK_STATE_WORKING",
    reason: "trusted worker lost the task",
  },
  RedispatchCommanded: {
    type: "RedispatchCommanded",
    decisionId: "d-4",
    ...decided,
    targetWorkerId: "worker-c",
    fromServerTaskId: "task-1",
    skillId: "summarize",
    attempt: 2,
    resumeState: "TASK_STATE_INPUT_REQUIRED",
    acceptedOutputModes: ["text/markdown"],
    candidates: [{ workerId: "worker-c", eligible: true, reason: "verifies input-required" }],
  },
  ReconciliationBlocked: {
    type: "ReconciliationBlocked",
    decisionId: "d-5",
    ...decided,
    workerId: null,
    lastState: "TASK_STATE_INPUT_REQUIRED",
    reason: "no worker verifies input-required",
    candidates: [{ workerId: "worker-b", eligible: false, reason: "input-required not verified" }],
  },
  TaskReconciled: {
    type: "TaskReconciled",
    decisionId: "d-6",
    ...decided,
    serverTaskId: "task-2",
    state: "TASK_STATE_COMPLETED",
    attempt: 2,
    reason: "attempt 2 ended in TASK_STATE_COMPLETED",
  },
  ProbeRequested: {
    type: "ProbeRequested",
    decisionId: "d-7",
    ...decided,
    cardHash: "a".repeat(64),
    cardUrl: null,
    reason: "first-contact",
  },
  CapabilitiesVerified: {
    type: "CapabilitiesVerified",
    decisionId: "d-8",
    ...decided,
    cardHash: "a".repeat(64),
    states: ["TASK_STATE_WORKING"],
    outputModes: [{ skillId: "summarize", outputModes: ["text/markdown"] }],
    durable: null,
    skills: [{ skillId: "summarize", states: ["TASK_STATE_WORKING"], outputModes: ["text/markdown"] }],
  },
  CardChanged: {
    type: "CardChanged",
    decisionId: "d-9",
    ...decided,
    previousCardHash: "a".repeat(64),
    cardHash: "b".repeat(64),
    changes: [{ path: "/defaultOutputModes/0", before: '"text/markdown"', after: '"text/html"' }],
  },
};

const state: { [T in StateRecordType]: Extract<StateRecord, { type: T }> } = {
  CapabilitySnapshot: {
    type: "CapabilitySnapshot",
    workerId: "worker-a",
    validFrom: at,
    causeEventId: "ev-1",
    cardHash: "a".repeat(64),
    vendor: "VendorA",
    taskStore: "ephemeral",
    advertisedStates: ["TASK_STATE_WORKING"],
    advertisedOutputModes: [{ skillId: "summarize", outputModes: ["text/markdown"] }],
    defaultOutputModes: ["text/markdown"],
    verified: true,
    verifiedStates: ["TASK_STATE_WORKING"],
    verifiedOutputModes: ["text/markdown"],
    durable: false,
    cardUrl: "http://127.0.0.1:4000/.well-known/agent-card.json",
    card: JSON.stringify(card),
    cacheMaxAgeSeconds: 3600,
    verifiedSkills: [{ skillId: "summarize", states: ["TASK_STATE_WORKING"], outputModes: ["text/markdown"] }],
  },
  TrustPolicy: {
    type: "TrustPolicy",
    version: 1,
    validFrom: at,
    trustedVendors: ["VendorA"],
    setAt: at - 30_000,
    setBy: "ops@host-1",
    reason: "VendorA runs a durable task store",
  },
  ReconcilerBatch: {
    type: "ReconcilerBatch",
    partition: 2,
    fromOffset: 120,
    toOffset: 131,
    recheck: false,
    capabilityReads: [
      { partition: 0, offset: 42 },
      { partition: 2, offset: 119 },
    ],
    capabilityOwnBatches: [{ partition: 2, offset: 125 }],
    policyVersions: 1,
    rulesVersion: "default/3",
    committedAt: at + 5,
  },
};

const clone = <T>(value: T): T => structuredClone(value);
export const sampleObservation = <T extends ObservationType>(type: T): Extract<Observation, { type: T }> =>
  clone(observations[type]);
export const sampleDecision = <T extends DecisionType>(type: T): Extract<Decision, { type: T }> =>
  clone(decisions[type]);
export const sampleStateRecord = <T extends StateRecordType>(type: T): Extract<StateRecord, { type: T }> =>
  clone(state[type]);
export const allSamples = (): (Observation | Decision | StateRecord)[] =>
  [...Object.values(observations), ...Object.values(decisions), ...Object.values(state)].map(clone);
