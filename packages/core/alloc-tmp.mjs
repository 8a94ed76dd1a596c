// schemas/src/generated/types.ts
var TaskStateSymbols = ["TASK_STATE_UNSPECIFIED", "TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_AUTH_REQUIRED", "TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"];
var observationTypes = ["AgentCardObserved", "ArtifactEmitted", "ProbeCompleted", "TaskDispatched", "TaskNotFoundObserved", "TaskStateObserved"];

// schemas/src/generated/avro-schemas.ts
var avroSchemas = {
  observations: {
    AgentCardObserved: { "type": "record", "name": "AgentCardObserved", "namespace": "a2a.ledger.v1", "doc": "An Agent Card fetch.", "fields": [{ "name": "eventId", "type": "string", "doc": "Producer-chosen; the de-duplication key." }, { "name": "correlationId", "type": "string", "doc": "Durable key of the logical task across attempts and workers." }, { "name": "occurredAt", "type": { "type": "long", "logicalType": "timestamp-millis" }, "doc": "When the observer saw it." }, { "name": "observer", "type": "string", "doc": "Who saw it: an orchestrator, a proxy, a worker, the dispatcher." }, { "name": "workerId", "type": "string", "doc": "The worker the observation concerns." }, { "name": "cardUrl", "type": "string" }, { "name": "card", "type": "string", "doc": "The card as fetched, JSON text." }, { "name": "cardHash", "type": "string", "doc": "sha256 (hex) of the RFC 8785 canonical JSON of the card." }, { "name": "cacheMaxAgeSeconds", "type": ["null", "long"], "default": null, "doc": "Cache-Control max-age the server sent." }, { "name": "etag", "type": ["null", "string"], "default": null }] },
    ArtifactEmitted: { "type": "record", "name": "ArtifactEmitted", "namespace": "a2a.ledger.v1", "doc": "An artifact arrived from a worker.", "fields": [{ "name": "eventId", "type": "string", "doc": "Producer-chosen; the de-duplication key." }, { "name": "correlationId", "type": "string", "doc": "Durable key of the logical task across attempts and workers." }, { "name": "occurredAt", "type": { "type": "long", "logicalType": "timestamp-millis" }, "doc": "When the observer saw it." }, { "name": "observer", "type": "string", "doc": "Who saw it: an orchestrator, a proxy, a worker, the dispatcher." }, { "name": "workerId", "type": "string", "doc": "The worker the observation concerns." }, { "name": "serverTaskId", "type": "string" }, { "name": "artifactId", "type": "string" }, { "name": "name", "type": ["null", "string"], "default": null, "doc": "The artifact name: which output it is across attempts." }, { "name": "parts", "type": { "type": "array", "items": { "type": "record", "name": "ArtifactPart", "namespace": "a2a.ledger.v1", "fields": [{ "name": "kind", "type": { "type": "enum", "name": "PartKind", "namespace": "a2a.ledger.v1", "doc": "Which member of the A2A Part oneof was set.", "symbols": ["TEXT", "RAW", "URL", "DATA", "OTHER"], "default": "OTHER" } }, { "name": "mediaType", "type": ["null", "string"], "default": null, "doc": "mediaType (v0.3 mimeType); null when the part declared none." }, { "name": "sizeBytes", "type": "long", "doc": "Size of the part's content as observed (text in UTF-8 bytes, raw decoded, data as JSON)." }] } } }, { "name": "append", "type": "boolean", "default": false, "doc": "A streamed chunk that extends the artifact of the same artifactId (A2A artifactUpdate.append)." }, { "name": "lastChunk", "type": ["null", "boolean"], "default": null, "doc": "false for a streamed chunk with more to come, true for the last one; null when the artifact arrived whole." }] },
    ProbeCompleted: { "type": "record", "name": "ProbeCompleted", "namespace": "a2a.ledger.v1", "doc": "A capability probe of a worker ended.", "fields": [{ "name": "eventId", "type": "string", "doc": "Producer-chosen; the de-duplication key." }, { "name": "correlationId", "type": "string", "doc": "Durable key of the logical task across attempts and workers." }, { "name": "occurredAt", "type": { "type": "long", "logicalType": "timestamp-millis" }, "doc": "When the observer saw it." }, { "name": "observer", "type": "string", "doc": "Who saw it: an orchestrator, a proxy, a worker, the dispatcher." }, { "name": "workerId", "type": "string", "doc": "The worker the observation concerns." }, { "name": "cardHash", "type": "string", "doc": "The card the probe tested." }, { "name": "skillId", "type": ["null", "string"], "default": null }, { "name": "statesObserved", "type": { "type": "array", "items": { "type": "enum", "name": "TaskState", "namespace": "a2a.ledger.v1", "doc": "A2A v1.0 TaskState (ProtoJSON names). v0.3 spellings are normalized at every input; the raw value travels beside it.", "symbols": ["TASK_STATE_UNSPECIFIED", "TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_AUTH_REQUIRED", "TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"], "default": "TASK_STATE_UNSPECIFIED" } } }, { "name": "reobservable", "type": { "type": "array", "items": "a2a.ledger.v1.TaskState" }, "doc": "States that GetTask from a fresh client observed again." }, { "name": "emittedModes", "type": { "type": "array", "items": "string" } }, { "name": "durable", "type": ["null", "boolean"], "default": null, "doc": "Whether tasks survived a worker restart; null when unknown." }, { "name": "parkedCanaries", "type": { "type": "array", "items": { "type": "record", "name": "ParkedCanary", "namespace": "a2a.ledger.v1", "doc": "A probe task deliberately left in an interrupted state to test whether the worker keeps it.", "fields": [{ "name": "serverTaskId", "type": "string" }, { "name": "state", "type": "a2a.ledger.v1.TaskState" }] } }, "default": [] }] },
    TaskDispatched: { "type": "record", "name": "TaskDispatched", "namespace": "a2a.ledger.v1", "doc": "An orchestrator sent a task to a worker.", "fields": [{ "name": "eventId", "type": "string", "doc": "Producer-chosen; the de-duplication key." }, { "name": "correlationId", "type": "string", "doc": "Durable key of the logical task across attempts and workers." }, { "name": "occurredAt", "type": { "type": "long", "logicalType": "timestamp-millis" }, "doc": "When the observer saw it." }, { "name": "observer", "type": "string", "doc": "Who saw it: an orchestrator, a proxy, a worker, the dispatcher." }, { "name": "workerId", "type": "string", "doc": "The worker the observation concerns." }, { "name": "skillId", "type": ["null", "string"], "default": null }, { "name": "messageId", "type": "string" }, { "name": "acceptedOutputModes", "type": { "type": "array", "items": "string" }, "default": [], "doc": "Media types the client accepts; empty means anything." }, { "name": "cardHash", "type": ["null", "string"], "default": null, "doc": "Hash of the card the orchestrator relied on." }, { "name": "cardFetchedAt", "type": ["null", { "type": "long", "logicalType": "timestamp-millis" }], "default": null, "doc": "When the orchestrator fetched the card it relied on." }, { "name": "attempt", "type": "int", "default": 1 }] },
    TaskNotFoundObserved: { "type": "record", "name": "TaskNotFoundObserved", "namespace": "a2a.ledger.v1", "doc": "A worker answered TaskNotFound (-32001, HTTP 404, gRPC NOT_FOUND).", "fields": [{ "name": "eventId", "type": "string", "doc": "Producer-chosen; the de-duplication key." }, { "name": "correlationId", "type": "string", "doc": "Durable key of the logical task across attempts and workers." }, { "name": "occurredAt", "type": { "type": "long", "logicalType": "timestamp-millis" }, "doc": "When the observer saw it." }, { "name": "observer", "type": "string", "doc": "Who saw it: an orchestrator, a proxy, a worker, the dispatcher." }, { "name": "workerId", "type": "string", "doc": "The worker the observation concerns." }, { "name": "serverTaskId", "type": "string" }, { "name": "method", "type": "string", "doc": "The A2A method that was answered, e.g. GetTask." }, { "name": "errorCode", "type": "string", "doc": "-32001, 404 or NOT_FOUND, as it arrived." }] },
    TaskStateObserved: { "type": "record", "name": "TaskStateObserved", "namespace": "a2a.ledger.v1", "doc": "A task state was seen.", "fields": [{ "name": "eventId", "type": "string", "doc": "Producer-chosen; the de-duplication key." }, { "name": "correlationId", "type": "string", "doc": "Durable key of the logical task across attempts and workers." }, { "name": "occurredAt", "type": { "type": "long", "logicalType": "timestamp-millis" }, "doc": "When the observer saw it." }, { "name": "observer", "type": "string", "doc": "Who saw it: an orchestrator, a proxy, a worker, the dispatcher." }, { "name": "workerId", "type": "string", "doc": "The worker the observation concerns." }, { "name": "serverTaskId", "type": "string" }, { "name": "contextId", "type": ["null", "string"], "default": null }, { "name": "state", "type": { "type": "enum", "name": "TaskState", "namespace": "a2a.ledger.v1", "doc": "A2A v1.0 TaskState (ProtoJSON names). v0.3 spellings are normalized at every input; the raw value travels beside it.", "symbols": ["TASK_STATE_UNSPECIFIED", "TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_AUTH_REQUIRED", "TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"], "default": "TASK_STATE_UNSPECIFIED" } }, { "name": "rawState", "type": "string", "doc": "The state exactly as it arrived (v0.3 or v1.0 spelling)." }, { "name": "via", "type": { "type": "enum", "name": "ObservationChannel", "namespace": "a2a.ledger.v1", "doc": "How a task state reached the observer: the SendMessage response, GetTask, a stream event or a push notification.", "symbols": ["SEND_RESPONSE", "GET", "STREAM", "PUSH", "OTHER"], "default": "OTHER" } }] }
  },
  decisions: {
    CapabilitiesVerified: { "type": "record", "name": "CapabilitiesVerified", "namespace": "a2a.ledger.v1", "doc": "A probe established what a worker verifiably does.", "fields": [{ "name": "decisionId", "type": "string", "doc": "Deterministic: derived from the cause event and its position, never random." }, { "name": "correlationId", "type": "string" }, { "name": "causeEventIds", "type": { "type": "array", "items": "string" } }, { "name": "rulesVersion", "type": "string" }, { "name": "decidedAt", "type": { "type": "long", "logicalType": "timestamp-millis" }, "doc": "occurredAt of the event that caused the decision (rules read no clock)." }, { "name": "workerId", "type": ["null", "string"], "default": null, "doc": "The worker the decision concerns, when one does." }, { "name": "cardHash", "type": "string" }, { "name": "states", "type": { "type": "array", "items": { "type": "enum", "name": "TaskState", "namespace": "a2a.ledger.v1", "doc": "A2A v1.0 TaskState (ProtoJSON names). v0.3 spellings are normalized at every input; the raw value travels beside it.", "symbols": ["TASK_STATE_UNSPECIFIED", "TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_AUTH_REQUIRED", "TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"], "default": "TASK_STATE_UNSPECIFIED" } } }, { "name": "outputModes", "type": { "type": "array", "items": { "type": "record", "name": "SkillOutputModes", "namespace": "a2a.ledger.v1", "fields": [{ "name": "skillId", "type": "string" }, { "name": "outputModes", "type": { "type": "array", "items": "string" } }] } } }, { "name": "durable", "type": ["null", "boolean"], "default": null }, { "name": "skills", "type": { "type": "array", "items": { "type": "record", "name": "VerifiedSkill", "namespace": "a2a.ledger.v1", "doc": "What probes of one skill of one card verified: states reached and re-observed by a fresh client, media types emitted.", "fields": [{ "name": "skillId", "type": ["null", "string"], "default": null, "doc": "null: dispatches that name no skill." }, { "name": "states", "type": { "type": "array", "items": "a2a.ledger.v1.TaskState" } }, { "name": "outputModes", "type": { "type": "array", "items": "string" } }] } }, "default": [], "doc": "V per skill of the card after this decision." }] },
    CardChanged: { "type": "record", "name": "CardChanged", "namespace": "a2a.ledger.v1", "doc": "A worker card hash changed (R8).", "fields": [{ "name": "decisionId", "type": "string", "doc": "Deterministic: derived from the cause event and its position, never random." }, { "name": "correlationId", "type": "string" }, { "name": "causeEventIds", "type": { "type": "array", "items": "string" } }, { "name": "rulesVersion", "type": "string" }, { "name": "decidedAt", "type": { "type": "long", "logicalType": "timestamp-millis" }, "doc": "occurredAt of the event that caused the decision (rules read no clock)." }, { "name": "workerId", "type": ["null", "string"], "default": null, "doc": "The worker the decision concerns, when one does." }, { "name": "previousCardHash", "type": "string" }, { "name": "cardHash", "type": "string" }, { "name": "changes", "type": { "type": "array", "items": { "type": "record", "name": "FieldChange", "namespace": "a2a.ledger.v1", "fields": [{ "name": "path", "type": "string", "doc": "JSON pointer (RFC 6901) of the changed field in the card." }, { "name": "before", "type": ["null", "string"], "default": null, "doc": "Canonical JSON of the old value; null when absent." }, { "name": "after", "type": ["null", "string"], "default": null, "doc": "Canonical JSON of the new value; null when absent." }] } } }] },
    ContractViolation: { "type": "record", "name": "ContractViolation", "namespace": "a2a.ledger.v1", "doc": "A worker did something its card or its verified capabilities do not allow (R1, R2, R3, R8, R9).", "fields": [{ "name": "decisionId", "type": "string", "doc": "Deterministic: derived from the cause event and its position, never random." }, { "name": "correlationId", "type": "string" }, { "name": "causeEventIds", "type": { "type": "array", "items": "string" } }, { "name": "rulesVersion", "type": "string" }, { "name": "decidedAt", "type": { "type": "long", "logicalType": "timestamp-millis" }, "doc": "occurredAt of the event that caused the decision (rules read no clock)." }, { "name": "workerId", "type": ["null", "string"], "default": null, "doc": "The worker the decision concerns, when one does." }, { "name": "kind", "type": { "type": "enum", "name": "ViolationKind", "namespace": "a2a.ledger.v1", "symbols": ["UNKNOWN", "STATE_NOT_ADVERTISED", "STATE_NOT_VERIFIED", "OUTPUT_MODE_NOT_ADVERTISED", "OUTPUT_MODE_NOT_VERIFIED", "OUTPUT_MODE_NOT_NEGOTIATED", "DIVERGENT_ARTIFACTS", "TASK_STORE_NOT_DURABLE", "CARD_USED_PAST_MAX_AGE", "SKILL_NOT_ADVERTISED", "UNSEEN_TASK_NOT_FOUND"], "default": "UNKNOWN" } }, { "name": "serverTaskId", "type": ["null", "string"], "default": null }, { "name": "observed", "type": "string", "doc": "What was seen: a state, a media type, a set of media types." }, { "name": "allowed", "type": { "type": "array", "items": "string" }, "default": [], "doc": "What the card, the probe or the negotiation allowed." }, { "name": "cardHash", "type": ["null", "string"], "default": null, "doc": "The card in force when it was seen." }, { "name": "detail", "type": "string" }, { "name": "skillId", "type": ["null", "string"], "default": null, "doc": "The skill the violation concerns, when one does." }, { "name": "output", "type": ["null", "string"], "default": null, "doc": "R3: which output of the logical task (the artifact name, else #n: its position among the attempt's artifacts)." }, { "name": "attempts", "type": { "type": "array", "items": "int" }, "default": [], "doc": "Attempt numbers the violation concerns (R3: the two attempts compared)." }] },
    ProbeRequested: { "type": "record", "name": "ProbeRequested", "namespace": "a2a.ledger.v1", "doc": "Probe a worker before trusting its card (R7); also a command on a2a.commands.v1.", "fields": [{ "name": "decisionId", "type": "string", "doc": "Deterministic: derived from the cause event and its position, never random." }, { "name": "correlationId", "type": "string" }, { "name": "causeEventIds", "type": { "type": "array", "items": "string" } }, { "name": "rulesVersion", "type": "string" }, { "name": "decidedAt", "type": { "type": "long", "logicalType": "timestamp-millis" }, "doc": "occurredAt of the event that caused the decision (rules read no clock)." }, { "name": "workerId", "type": ["null", "string"], "default": null, "doc": "The worker the decision concerns, when one does." }, { "name": "cardHash", "type": "string" }, { "name": "cardUrl", "type": ["null", "string"], "default": null }, { "name": "reason", "type": "string", "doc": "first-contact or card-changed." }] },
    ReconciliationBlocked: { "type": "record", "name": "ReconciliationBlocked", "namespace": "a2a.ledger.v1", "doc": "No worker is eligible to take over an indeterminate task (R6): the operator alert.", "fields": [{ "name": "decisionId", "type": "string", "doc": "Deterministic: derived from the cause event and its position, never random." }, { "name": "correlationId", "type": "string" }, { "name": "causeEventIds", "type": { "type": "array", "items": "string" } }, { "name": "rulesVersion", "type": "string" }, { "name": "decidedAt", "type": { "type": "long", "logicalType": "timestamp-millis" }, "doc": "occurredAt of the event that caused the decision (rules read no clock)." }, { "name": "workerId", "type": ["null", "string"], "default": null, "doc": "The worker the decision concerns, when one does." }, { "name": "lastState", "type": { "type": "enum", "name": "TaskState", "namespace": "a2a.ledger.v1", "doc": "A2A v1.0 TaskState (ProtoJSON names). v0.3 spellings are normalized at every input; the raw value travels beside it.", "symbols": ["TASK_STATE_UNSPECIFIED", "TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_AUTH_REQUIRED", "TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"], "default": "TASK_STATE_UNSPECIFIED" } }, { "name": "reason", "type": "string" }, { "name": "candidates", "type": { "type": "array", "items": { "type": "record", "name": "CandidateVerdict", "namespace": "a2a.ledger.v1", "doc": "Why a worker was or was not eligible for a re-dispatch.", "fields": [{ "name": "workerId", "type": "string" }, { "name": "eligible", "type": "boolean" }, { "name": "reason", "type": "string" }] } }, "default": [] }] },
    RedispatchCommanded: { "type": "record", "name": "RedispatchCommanded", "namespace": "a2a.ledger.v1", "doc": "Re-dispatch the logical task to a worker (R6); also a command on a2a.commands.v1.", "fields": [{ "name": "decisionId", "type": "string", "doc": "Deterministic: derived from the cause event and its position, never random." }, { "name": "correlationId", "type": "string" }, { "name": "causeEventIds", "type": { "type": "array", "items": "string" } }, { "name": "rulesVersion", "type": "string" }, { "name": "decidedAt", "type": { "type": "long", "logicalType": "timestamp-millis" }, "doc": "occurredAt of the event that caused the decision (rules read no clock)." }, { "name": "workerId", "type": ["null", "string"], "default": null, "doc": "The worker the decision concerns, when one does." }, { "name": "targetWorkerId", "type": "string" }, { "name": "fromServerTaskId", "type": ["null", "string"], "default": null }, { "name": "skillId", "type": ["null", "string"], "default": null }, { "name": "attempt", "type": "int" }, { "name": "resumeState", "type": ["null", { "type": "enum", "name": "TaskState", "namespace": "a2a.ledger.v1", "doc": "A2A v1.0 TaskState (ProtoJSON names). v0.3 spellings are normalized at every input; the raw value travels beside it.", "symbols": ["TASK_STATE_UNSPECIFIED", "TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_AUTH_REQUIRED", "TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"], "default": "TASK_STATE_UNSPECIFIED" }], "default": null, "doc": "The interrupted state to resume from; null when the task restarts from scratch." }, { "name": "acceptedOutputModes", "type": { "type": "array", "items": "string" }, "default": [] }, { "name": "candidates", "type": { "type": "array", "items": { "type": "record", "name": "CandidateVerdict", "namespace": "a2a.ledger.v1", "doc": "Why a worker was or was not eligible for a re-dispatch.", "fields": [{ "name": "workerId", "type": "string" }, { "name": "eligible", "type": "boolean" }, { "name": "reason", "type": "string" }] } }, "default": [] }] },
    TaskFailed: { "type": "record", "name": "TaskFailed", "namespace": "a2a.ledger.v1", "doc": "A non-terminal task was lost on a trusted worker (R5, trust mode only).", "fields": [{ "name": "decisionId", "type": "string", "doc": "Deterministic: derived from the cause event and its position, never random." }, { "name": "correlationId", "type": "string" }, { "name": "causeEventIds", "type": { "type": "array", "items": "string" } }, { "name": "rulesVersion", "type": "string" }, { "name": "decidedAt", "type": { "type": "long", "logicalType": "timestamp-millis" }, "doc": "occurredAt of the event that caused the decision (rules read no clock)." }, { "name": "workerId", "type": ["null", "string"], "default": null, "doc": "The worker the decision concerns, when one does." }, { "name": "serverTaskId", "type": "string" }, { "name": "lastState", "type": { "type": "enum", "name": "TaskState", "namespace": "a2a.ledger.v1", "doc": "A2A v1.0 TaskState (ProtoJSON names). v0.3 spellings are normalized at every input; the raw value travels beside it.", "symbols": ["TASK_STATE_UNSPECIFIED", "TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_AUTH_REQUIRED", "TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"], "default": "TASK_STATE_UNSPECIFIED" } }, { "name": "reason", "type": "string" }] },
    TaskIndeterminate: { "type": "record", "name": "TaskIndeterminate", "namespace": "a2a.ledger.v1", "doc": "A non-terminal task was lost (TaskNotFound) under verify: neither terminal nor resumable until reconciled (R5).", "fields": [{ "name": "decisionId", "type": "string", "doc": "Deterministic: derived from the cause event and its position, never random." }, { "name": "correlationId", "type": "string" }, { "name": "causeEventIds", "type": { "type": "array", "items": "string" } }, { "name": "rulesVersion", "type": "string" }, { "name": "decidedAt", "type": { "type": "long", "logicalType": "timestamp-millis" }, "doc": "occurredAt of the event that caused the decision (rules read no clock)." }, { "name": "workerId", "type": ["null", "string"], "default": null, "doc": "The worker the decision concerns, when one does." }, { "name": "serverTaskId", "type": "string" }, { "name": "lastState", "type": { "type": "enum", "name": "TaskState", "namespace": "a2a.ledger.v1", "doc": "A2A v1.0 TaskState (ProtoJSON names). v0.3 spellings are normalized at every input; the raw value travels beside it.", "symbols": ["TASK_STATE_UNSPECIFIED", "TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_AUTH_REQUIRED", "TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"], "default": "TASK_STATE_UNSPECIFIED" } }, { "name": "lastObserver", "type": "string", "doc": "Who observed the last state (R10: taken over all observers)." }, { "name": "reason", "type": "string" }, { "name": "attempt", "type": ["null", "int"], "default": null, "doc": "The attempt the lost server task belongs to." }] },
    TaskReconciled: { "type": "record", "name": "TaskReconciled", "namespace": "a2a.ledger.v1", "doc": "An indeterminate task reached a terminal state on a later attempt.", "fields": [{ "name": "decisionId", "type": "string", "doc": "Deterministic: derived from the cause event and its position, never random." }, { "name": "correlationId", "type": "string" }, { "name": "causeEventIds", "type": { "type": "array", "items": "string" } }, { "name": "rulesVersion", "type": "string" }, { "name": "decidedAt", "type": { "type": "long", "logicalType": "timestamp-millis" }, "doc": "occurredAt of the event that caused the decision (rules read no clock)." }, { "name": "workerId", "type": ["null", "string"], "default": null, "doc": "The worker the decision concerns, when one does." }, { "name": "serverTaskId", "type": "string" }, { "name": "state", "type": { "type": "enum", "name": "TaskState", "namespace": "a2a.ledger.v1", "doc": "A2A v1.0 TaskState (ProtoJSON names). v0.3 spellings are normalized at every input; the raw value travels beside it.", "symbols": ["TASK_STATE_UNSPECIFIED", "TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_AUTH_REQUIRED", "TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"], "default": "TASK_STATE_UNSPECIFIED" } }, { "name": "attempt", "type": "int" }, { "name": "reason", "type": "string", "default": "", "doc": "How the task was reconciled: a later attempt ended, or the lost task reappeared." }] }
  },
  state: {
    CapabilitySnapshot: { "type": "record", "name": "CapabilitySnapshot", "namespace": "a2a.ledger.v1", "doc": "Advertised and verified capabilities of a worker from validFrom on (compacted topic a2a.capabilities.v1, key workerId).", "fields": [{ "name": "workerId", "type": "string" }, { "name": "validFrom", "type": { "type": "long", "logicalType": "timestamp-millis" } }, { "name": "causeEventId", "type": "string" }, { "name": "cardHash", "type": "string" }, { "name": "vendor", "type": ["null", "string"], "default": null }, { "name": "taskStore", "type": "string", "doc": "durable, ephemeral or unknown, as the card claims." }, { "name": "advertisedStates", "type": { "type": "array", "items": { "type": "enum", "name": "TaskState", "namespace": "a2a.ledger.v1", "doc": "A2A v1.0 TaskState (ProtoJSON names). v0.3 spellings are normalized at every input; the raw value travels beside it.", "symbols": ["TASK_STATE_UNSPECIFIED", "TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_AUTH_REQUIRED", "TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"], "default": "TASK_STATE_UNSPECIFIED" } } }, { "name": "advertisedOutputModes", "type": { "type": "array", "items": { "type": "record", "name": "SkillOutputModes", "namespace": "a2a.ledger.v1", "fields": [{ "name": "skillId", "type": "string" }, { "name": "outputModes", "type": { "type": "array", "items": "string" } }] } } }, { "name": "defaultOutputModes", "type": { "type": "array", "items": "string" } }, { "name": "verified", "type": "boolean", "doc": "Whether a probe verified this card." }, { "name": "verifiedStates", "type": { "type": "array", "items": "a2a.ledger.v1.TaskState" }, "default": [] }, { "name": "verifiedOutputModes", "type": { "type": "array", "items": "string" }, "default": [] }, { "name": "durable", "type": ["null", "boolean"], "default": null }, { "name": "cardUrl", "type": ["null", "string"], "default": null, "doc": "Where the card in force was fetched." }, { "name": "card", "type": ["null", "string"], "default": null, "doc": "The card in force as fetched, JSON text: the previous card for the next CardChanged diff (R8)." }, { "name": "cacheMaxAgeSeconds", "type": ["null", "long"], "default": null, "doc": "Cache-Control max-age the card was served with." }, { "name": "verifiedSkills", "type": { "type": "array", "items": { "type": "record", "name": "VerifiedSkill", "namespace": "a2a.ledger.v1", "doc": "What probes of one skill of one card verified: states reached and re-observed by a fresh client, media types emitted.", "fields": [{ "name": "skillId", "type": ["null", "string"], "default": null, "doc": "null: dispatches that name no skill." }, { "name": "states", "type": { "type": "array", "items": "a2a.ledger.v1.TaskState" } }, { "name": "outputModes", "type": { "type": "array", "items": "string" } }] } }, "default": [], "doc": "V per skill of this card: what probes of each skill verified (a probe of one skill verifies nothing about another)." }] }
  }
};

// schemas/src/validate.ts
import avro from "avsc";
var types = { observations: /* @__PURE__ */ new Map(), decisions: /* @__PURE__ */ new Map(), state: /* @__PURE__ */ new Map() };
function avroType(group, name) {
  const built = types[group];
  let type = built.get(name);
  if (type === void 0) {
    const schema2 = avroSchemas[group][name];
    if (schema2 === void 0) throw new Error(`no ${group} schema named ${name}`);
    type = avro.Type.forSchema(schema2);
    built.set(name, type);
  }
  return type;
}
function isKnownType(group, name) {
  return typeof name === "string" && Object.hasOwn(avroSchemas[group], name);
}
function describe(value) {
  if (value === void 0) return "missing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return `string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}\u2026` : value)}`;
  return typeof value === "object" ? "an object" : `${typeof value} ${String(value)}`;
}
function expected(type) {
  const t = type;
  if (t.typeName === "enum" && t.symbols) return `one of ${t.symbols.join(", ")}`;
  if (t.typeName === "union:unwrapped" && t.types) return t.types.map(expected).join(" or ");
  if (t.typeName === "array") return "an array";
  if (t.typeName === "record") return "an object";
  if (t.typeName === "long" || t.typeName === "int") return `an integer (${t.typeName})`;
  return String(t.typeName);
}
function undeclaredFields(type, value, path, issues) {
  if (value === null || typeof value !== "object") return;
  if (type instanceof avro.types.RecordType) {
    const declared = new Map(type.fields.map((f) => [f.name, f.type]));
    for (const [key, child] of Object.entries(value)) {
      const childPath = path === "" ? key : `${path}.${key}`;
      const fieldType = declared.get(key);
      if (fieldType === void 0) issues.push({ path: childPath, message: "unknown field" });
      else undeclaredFields(fieldType, child, childPath, issues);
    }
  } else if (type instanceof avro.types.ArrayType && Array.isArray(value)) {
    value.forEach((item, i) => undeclaredFields(type.itemsType, item, `${path}[${i}]`, issues));
  } else if (type instanceof avro.types.UnwrappedUnionType) {
    const branch = type.types.find((t) => t instanceof avro.types.RecordType || t instanceof avro.types.ArrayType);
    if (branch) undeclaredFields(branch, value, path, issues);
  }
}
var strictCheck = { noUndeclaredFields: true };
function isValidRecord(group, name, value) {
  return avroType(group, name).isValid(value, strictCheck);
}
function validateRecord(group, name, value) {
  const type = avroType(group, name);
  if (type.isValid(value, strictCheck)) return [];
  const issues = [];
  type.isValid(value, {
    errorHook(path, val, t) {
      const at = path.map((p) => /^\d+$/.test(p) ? `[${p}]` : `.${p}`).join("").replace(/^\./, "");
      issues.push({ path: at, message: `expected ${expected(t)}, got ${describe(val)}` });
    }
  });
  undeclaredFields(type, value, "", issues);
  return issues;
}

// packages/core/src/vocabulary.ts
var taskStateSpellings = [
  // v1.0 ProtoJSON
  ["TASK_STATE_UNSPECIFIED", "TASK_STATE_UNSPECIFIED"],
  ["TASK_STATE_SUBMITTED", "TASK_STATE_SUBMITTED"],
  ["TASK_STATE_WORKING", "TASK_STATE_WORKING"],
  ["TASK_STATE_INPUT_REQUIRED", "TASK_STATE_INPUT_REQUIRED"],
  ["TASK_STATE_AUTH_REQUIRED", "TASK_STATE_AUTH_REQUIRED"],
  ["TASK_STATE_COMPLETED", "TASK_STATE_COMPLETED"],
  ["TASK_STATE_FAILED", "TASK_STATE_FAILED"],
  ["TASK_STATE_CANCELED", "TASK_STATE_CANCELED"],
  ["TASK_STATE_REJECTED", "TASK_STATE_REJECTED"],
  // v0.3 gRPC spelling
  ["TASK_STATE_CANCELLED", "TASK_STATE_CANCELED"],
  // v0.3 JSON
  ["submitted", "TASK_STATE_SUBMITTED"],
  ["working", "TASK_STATE_WORKING"],
  ["input-required", "TASK_STATE_INPUT_REQUIRED"],
  ["auth-required", "TASK_STATE_AUTH_REQUIRED"],
  ["completed", "TASK_STATE_COMPLETED"],
  ["failed", "TASK_STATE_FAILED"],
  ["canceled", "TASK_STATE_CANCELED"],
  ["cancelled", "TASK_STATE_CANCELED"],
  ["rejected", "TASK_STATE_REJECTED"],
  ["unknown", "TASK_STATE_UNSPECIFIED"]
];
var channelSpellings = [
  ["SEND_RESPONSE", "SEND_RESPONSE"],
  ["GET", "GET"],
  ["STREAM", "STREAM"],
  ["PUSH", "PUSH"],
  ["OTHER", "OTHER"],
  ["send-response", "SEND_RESPONSE"],
  ["get", "GET"],
  ["stream", "STREAM"],
  ["push", "PUSH"],
  ["other", "OTHER"]
];
var partKindSpellings = [
  ["TEXT", "TEXT"],
  ["RAW", "RAW"],
  ["URL", "URL"],
  ["DATA", "DATA"],
  ["OTHER", "OTHER"],
  ["text", "TEXT"],
  ["raw", "RAW"],
  ["url", "URL"],
  ["data", "DATA"],
  ["other", "OTHER"]
];
var observationTypeNames = observationTypes;
var spellingsOf = (table) => table.map(([spelling]) => spelling);
function lookupOf(table) {
  const map = new Map(table);
  return (spelling) => map.get(spelling) ?? null;
}

// packages/core/src/task-state.ts
var spellings = lookupOf(taskStateSpellings);
function normalizeTaskState(raw) {
  return spellings(raw);
}
var specStates = [
  "TASK_STATE_SUBMITTED",
  "TASK_STATE_WORKING",
  "TASK_STATE_INPUT_REQUIRED",
  "TASK_STATE_AUTH_REQUIRED",
  "TASK_STATE_COMPLETED",
  "TASK_STATE_FAILED",
  "TASK_STATE_CANCELED",
  "TASK_STATE_REJECTED"
];
var terminalStates = /* @__PURE__ */ new Set([
  "TASK_STATE_COMPLETED",
  "TASK_STATE_FAILED",
  "TASK_STATE_CANCELED",
  "TASK_STATE_REJECTED"
]);
var interruptedStates = /* @__PURE__ */ new Set([
  "TASK_STATE_INPUT_REQUIRED",
  "TASK_STATE_AUTH_REQUIRED"
]);
var isTerminal = (state3) => terminalStates.has(state3);
var isInterrupted = (state3) => interruptedStates.has(state3);
function sortStates(states2) {
  const order = (s) => s === "TASK_STATE_UNSPECIFIED" ? -1 : specStates.indexOf(s);
  return [...new Set(states2)].sort((a, b) => order(a) - order(b));
}

// packages/core/src/card.ts
var lifecycleExtensionUri = "urn:a2a-ledger:ext:task-lifecycle:v1";
var isRecord = (v) => typeof v === "object" && v !== null && !Array.isArray(v);
var strings = (v) => Array.isArray(v) ? v.filter((x) => typeof x === "string") : [];
function lifecycleExtension(card2) {
  const capabilities3 = card2["capabilities"];
  if (!isRecord(capabilities3)) return null;
  const extensions = capabilities3["extensions"];
  if (!Array.isArray(extensions)) return null;
  const ext = extensions.find((e) => isRecord(e) && e["uri"] === lifecycleExtensionUri);
  if (!isRecord(ext)) return null;
  return isRecord(ext["params"]) ? ext["params"] : {};
}
function taskStoreClaim(value) {
  return value === "durable" || value === "ephemeral" ? value : "unknown";
}
function interpretCard(card2) {
  const c = isRecord(card2) ? card2 : {};
  const provider = c["provider"];
  const vendor = isRecord(provider) && typeof provider["organization"] === "string" ? provider["organization"] : null;
  const ext = lifecycleExtension(c);
  const declared = ext === null ? null : strings(ext["states"]).map(normalizeTaskState);
  const states2 = declared === null ? [...specStates] : sortStates(declared.filter((s) => s !== null));
  const defaultOutputModes = strings(c["defaultOutputModes"]);
  const skills = [];
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
    states: states2,
    declaresLifecycle: ext !== null,
    defaultOutputModes,
    skills
  };
}
function outputModesFor(advertised, skillId) {
  if (skillId !== null) {
    const skill = advertised.advertisedOutputModes.find((s) => s.skillId === skillId);
    if (skill) return skill.outputModes;
  }
  return advertised.defaultOutputModes;
}

// packages/core/src/card-hash.ts
import { createHash } from "node:crypto";

// packages/core/src/canonical-json.ts
var CanonicalJsonError = class extends Error {
};
var needsEscape = /["\\\u0000-\u001f\ud800-\udfff]/;
function quote(text) {
  return needsEscape.test(text) ? JSON.stringify(text) : `"${text}"`;
}
function write(value) {
  if (value === null) return "null";
  switch (typeof value) {
    case "boolean":
      return value ? "true" : "false";
    case "number":
      if (!Number.isFinite(value)) throw new CanonicalJsonError(`cannot canonicalize non-finite number ${value}`);
      return JSON.stringify(value);
    // -0 becomes "0", exponents as ECMAScript prints them
    case "string":
      return quote(value);
    case "object": {
      if (Array.isArray(value)) {
        let text2 = "[";
        for (let i = 0; i < value.length; i++) text2 += i > 0 ? `,${write(value[i])}` : write(value[i]);
        return `${text2}]`;
      }
      const record = value;
      const keys = Object.keys(record).sort();
      let text = "{";
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i];
        const member = record[key];
        if (member === void 0) continue;
        text += `${text.length > 1 ? "," : ""}${quote(key)}:${write(member)}`;
      }
      return `${text}}`;
    }
    default:
      throw new CanonicalJsonError(`cannot canonicalize a ${typeof value}`);
  }
}
function canonicalize(value) {
  return write(value);
}

// packages/core/src/card-hash.ts
function cardHash(card2) {
  return createHash("sha256").update(canonicalize(card2), "utf8").digest("hex");
}

// packages/core/test/generated-log.ts
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = a + 1831565813 >>> 0;
    let t = a;
    t = Math.imul(t ^ t >>> 15, t | 1);
    t ^= t + Math.imul(t ^ t >>> 7, t | 61);
    return ((t ^ t >>> 14) >>> 0) / 4294967296;
  };
}
var workers = ["w-acme", "w-beta", "w-gamma", "w-delta", "w-eps"];
var observers = ["orchestrator", "proxy", "worker"];
var media = ["text/plain", "text/markdown", "application/json"];
function cardFor(i, version) {
  return {
    name: `${workers[i]} agent`,
    version: `1.${version}`,
    provider: { organization: `Vendor${i}` },
    capabilities: { extensions: [{ uri: lifecycleExtensionUri, params: { states: ["submitted", "working", "input-required", "completed", "failed"], taskStore: i % 2 === 0 ? "durable" : "ephemeral" } }] },
    defaultOutputModes: ["text/plain"],
    skills: [{ id: "summarize", outputModes: media.slice(0, 1 + i % 3) }]
  };
}
function generateLog(n, options = {}) {
  const refreshEvery = options.refreshEvery ?? 5e4;
  const rnd = prng(42);
  const lines2 = [];
  let t = Date.UTC(2025, 5, 1);
  let seq = 0;
  const push = (o) => lines2.push(JSON.stringify({ ...o, eventId: `ev-${++seq}`, occurredAt: t += 3 }));
  const probe = (i, card2) => {
    const w = workers[i];
    push({ type: "ProbeCompleted", correlationId: `probe-${w}`, observer: "dispatcher", workerId: w, cardHash: cardHash(card2), skillId: "summarize", statesObserved: ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_COMPLETED"], reobservable: i === 2 ? ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_COMPLETED"] : ["TASK_STATE_WORKING", "TASK_STATE_COMPLETED"], emittedModes: media.slice(0, 1 + i % 3), durable: i === 2 });
  };
  workers.forEach((w, i) => {
    const card2 = cardFor(i, 0);
    push({ type: "AgentCardObserved", correlationId: `probe-${w}`, observer: "dispatcher", workerId: w, cardUrl: `https://${w}/.well-known/agent-card.json`, card: card2, cacheMaxAgeSeconds: 3600 });
    probe(i, card2);
  });
  const active = [];
  let corrSeq = 0;
  const newCorrelation = () => {
    const corr = `task-${++corrSeq}`;
    const w = workers[Math.floor(rnd() * workers.length)];
    const task2 = `${w}-${corrSeq}`;
    const m = media[Math.floor(rnd() * 2)];
    const steps = [["dispatch", w], ["state", w, task2, "submitted"], ["state", w, task2, "working"], ["state", w, task2, "TASK_STATE_WORKING"], ["artifact", w, task2, m]];
    const r = rnd();
    if (r < 0.1) {
      steps.push(["state", w, task2, "input-required"], ["notFound", w, task2], ["dispatch2", "w-gamma"], ["state", "w-gamma", `g-${corrSeq}`, "working"], ["artifact", "w-gamma", `g-${corrSeq}`, "text/plain"], ["state", "w-gamma", `g-${corrSeq}`, "completed"]);
    } else if (r < 0.15) {
      steps.push(["state", w, task2, "failed"], ["notFound", w, task2]);
    } else {
      steps.push(["state", w, task2, "completed"], ["state", w, task2, "TASK_STATE_COMPLETED"]);
    }
    active.push({ corr, steps });
  };
  let refresh = 0;
  while (lines2.length < n) {
    if (lines2.length % refreshEvery === 0 && lines2.length > 0) {
      const i = refresh++ % workers.length;
      const card2 = cardFor(i, refresh);
      push({ type: "AgentCardObserved", correlationId: `probe-${workers[i]}`, observer: "dispatcher", workerId: workers[i], cardUrl: "u", card: card2, cacheMaxAgeSeconds: 600 });
      if (options.probeRefreshes === true) probe(i, card2);
      continue;
    }
    while (active.length < 200) newCorrelation();
    const k = Math.floor(rnd() * active.length);
    const c = active[k];
    const [kind, w, task2, arg] = c.steps.shift();
    const observer = observers[Math.floor(rnd() * 3)];
    const base = { correlationId: c.corr, observer, workerId: w };
    if (kind === "dispatch" || kind === "dispatch2") push({ type: "TaskDispatched", ...base, skillId: "summarize", messageId: `${c.corr}-${kind}`, acceptedOutputModes: ["text/plain", "text/markdown"], attempt: kind === "dispatch" ? 1 : 2, cardFetchedAt: t - 1e3 });
    else if (kind === "state") push({ type: "TaskStateObserved", ...base, serverTaskId: task2, contextId: `ctx-${c.corr}`, state: arg, via: observer === "proxy" ? "stream" : "get" });
    else if (kind === "artifact") push({ type: "ArtifactEmitted", ...base, serverTaskId: task2, artifactId: `${task2}-a`, name: "summary", parts: [{ kind: "TEXT", mediaType: arg, sizeBytes: 1200 }] });
    else push({ type: "TaskNotFoundObserved", ...base, serverTaskId: task2, method: "GetTask", errorCode: "-32001" });
    if (c.steps.length === 0) active.splice(k, 1);
  }
  return lines2.slice(0, n);
}

// packages/core/src/card-diff.ts
var escape = (token) => token.replace(/~/g, "~0").replace(/\//g, "~1");
var isRecord2 = (v) => typeof v === "object" && v !== null && !Array.isArray(v);
function walk(before, after, path, out) {
  if (isRecord2(before) && isRecord2(after)) {
    const keys = [.../* @__PURE__ */ new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    for (const key of keys) {
      const child = `${path}/${escape(key)}`;
      const has = [Object.hasOwn(before, key), Object.hasOwn(after, key)];
      if (has[0] && has[1]) walk(before[key], after[key], child, out);
      else out.push({ path: child, before: has[0] ? canonicalize(before[key]) : null, after: has[1] ? canonicalize(after[key]) : null });
    }
    return;
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const n = Math.max(before.length, after.length);
    for (let i = 0; i < n; i++) {
      const child = `${path}/${i}`;
      if (i < before.length && i < after.length) walk(before[i], after[i], child, out);
      else out.push({ path: child, before: i < before.length ? canonicalize(before[i]) : null, after: i < after.length ? canonicalize(after[i]) : null });
    }
    return;
  }
  const b = canonicalize(before);
  const a = canonicalize(after);
  if (a !== b) out.push({ path, before: b, after: a });
}
function diffCards(before, after) {
  const out = [];
  walk(before, after, "", out);
  return out;
}

// packages/core/src/media-type.ts
var essences = /* @__PURE__ */ new Map();
function essence(mediaType) {
  let e = essences.get(mediaType);
  if (e === void 0) {
    const semi = mediaType.indexOf(";");
    e = (semi === -1 ? mediaType : mediaType.slice(0, semi)).trim().toLowerCase();
    if (essences.size < 4096) essences.set(mediaType, e);
  }
  return e;
}
function mediaTypeAllowed(observed, allowed) {
  const o = essence(observed);
  const slash = o.indexOf("/");
  const major = slash === -1 ? o.length : slash;
  for (const a of allowed) {
    const e = essence(a);
    if (e === o || e === "*/*" || e === "*") return true;
    if (e.length === major + 2 && e.endsWith("/*") && o.startsWith(e.slice(0, major))) return true;
  }
  return false;
}

// packages/core/src/policy.ts
function policyFor(config, claim) {
  if (claim === void 0 || claim.vendor === null) return "verify";
  return claim.taskStore === "durable" && config.trustedVendors.includes(claim.vendor) ? "trust" : "verify";
}

// packages/core/src/verification.ts
function verifiedSkill(snap, skillId) {
  for (const s of snap.verifiedSkills) if (s.skillId === skillId) return s;
  if (snap.verified && snap.verifiedSkills.length === 0) return { skillId, states: snap.verifiedStates, outputModes: snap.verifiedOutputModes };
  return void 0;
}
function cardOffersSkill(snap, skillId) {
  if (skillId === null) return true;
  for (const s of snap.advertisedOutputModes) if (s.skillId === skillId) return true;
  return false;
}
function policyOf(config, snap) {
  if (snap === void 0 || snap.vendor === null || snap.taskStore !== "durable" || snap.durable === false) return "verify";
  return config.trustedVendors.includes(snap.vendor) ? "trust" : "verify";
}
function parseCardText(text) {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
function snapshotOfCard(obs2) {
  const a = interpretCard(parseCardText(obs2.card));
  return {
    workerId: obs2.workerId,
    validFrom: obs2.occurredAt,
    causeEventId: obs2.eventId,
    cardHash: obs2.cardHash,
    vendor: a.vendor,
    taskStore: a.taskStore,
    advertisedStates: a.states,
    advertisedOutputModes: a.skills,
    defaultOutputModes: a.defaultOutputModes,
    verified: false,
    verifiedStates: [],
    verifiedOutputModes: [],
    durable: null,
    cardUrl: obs2.cardUrl,
    card: obs2.card,
    cacheMaxAgeSeconds: obs2.cacheMaxAgeSeconds,
    verifiedSkills: []
  };
}
var union = (a, b) => [.../* @__PURE__ */ new Set([...a, ...b])].sort();
function mergeDurable(a, b) {
  if (a === false || b === false) return false;
  if (a === true || b === true) return true;
  return null;
}
function withSkills(current, skills, durable, cause) {
  const revoked = durable === false ? skills.map((s) => ({ ...s, states: s.states.filter((st) => !isInterrupted(st)) })) : skills;
  let states2 = [];
  let modes = [];
  for (const s of revoked) {
    states2 = [...states2, ...s.states];
    modes = union(modes, s.outputModes);
  }
  return { ...current, validFrom: cause.occurredAt, causeEventId: cause.eventId, verified: current.verified || skills.length > 0, verifiedSkills: revoked, verifiedStates: sortStates(states2), verifiedOutputModes: modes, durable };
}
var sameSkills = (a, b) => JSON.stringify(a) === JSON.stringify(b);
function snapshotOfProbe(current, probe) {
  const reobservable = new Set(probe.reobservable);
  const reached = probe.statesObserved.filter((s) => reobservable.has(s));
  const skills = current.verifiedSkills.map((s) => ({ ...s }));
  const existing = skills.find((s) => s.skillId === probe.skillId);
  if (existing === void 0) skills.push({ skillId: probe.skillId, states: sortStates(reached), outputModes: [...new Set(probe.emittedModes)].sort() });
  else {
    existing.states = sortStates([...existing.states, ...reached]);
    existing.outputModes = union(existing.outputModes, probe.emittedModes);
  }
  skills.sort((a, b) => (a.skillId ?? "") < (b.skillId ?? "") ? -1 : (a.skillId ?? "") > (b.skillId ?? "") ? 1 : 0);
  const next = withSkills(current, skills, mergeDurable(current.durable, probe.durable), probe);
  return current.verified && next.durable === current.durable && sameSkills(next.verifiedSkills, current.verifiedSkills) ? void 0 : next;
}
function snapshotRevokingInterrupted(current, cause) {
  const next = withSkills(current, current.verifiedSkills, false, cause);
  return current.durable === false && sameSkills(next.verifiedSkills, current.verifiedSkills) ? void 0 : next;
}
var none = { snapshots: [], cards: [] };
function derive(view, obs2) {
  const current = view.asOf(obs2.workerId, obs2.occurredAt);
  if (obs2.type === "AgentCardObserved") {
    const record = { cardHash: obs2.cardHash, cardUrl: obs2.cardUrl, card: obs2.card, cacheMaxAgeSeconds: obs2.cacheMaxAgeSeconds };
    if (current !== void 0 && current.cardHash === obs2.cardHash) return view.card(obs2.cardHash) === void 0 ? { snapshots: [], cards: [record] } : none;
    return { snapshots: [snapshotOfCard(obs2)], cards: [record] };
  }
  if (current === void 0 || current.cardHash !== obs2.cardHash) return none;
  const next = snapshotOfProbe(current, obs2);
  return next === void 0 ? none : { snapshots: [next], cards: [] };
}

// packages/core/src/capabilities.ts
function insertByValidFrom(history, snapshot) {
  let i = history.length;
  while (i > 0 && history[i - 1].validFrom > snapshot.validFrom) i--;
  history.splice(i, 0, snapshot);
}
function latestAtOrBefore(history, at) {
  let lo = 0;
  let hi = history.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = lo + hi >> 1;
    if (history[mid].validFrom <= at) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found === -1 ? void 0 : history[found];
}
var CapabilityTable = class _CapabilityTable {
  history = /* @__PURE__ */ new Map();
  cards = /* @__PURE__ */ new Map();
  sortedWorkers = null;
  static fromSnapshots(snapshots, cards = []) {
    const table = new _CapabilityTable();
    for (const s of snapshots) table.apply(s);
    for (const c of cards) table.rememberCard(c);
    return table;
  }
  /**
   * Inserts a snapshot in validFrom order; among equal validFrom the later applied one wins. A snapshot
   * that carries its card (every one derived from a card fetch does) also teaches the table that card,
   * so a table rebuilt from a2a.capabilities.v1 alone can diff the next card (R8).
   */
  apply(snapshot) {
    if (snapshot.card !== null && snapshot.cardUrl !== null && !this.cards.has(snapshot.cardHash)) {
      this.cards.set(snapshot.cardHash, { cardHash: snapshot.cardHash, cardUrl: snapshot.cardUrl, card: snapshot.card, cacheMaxAgeSeconds: snapshot.cacheMaxAgeSeconds });
    }
    let history = this.history.get(snapshot.workerId);
    if (history === void 0) {
      history = [];
      this.history.set(snapshot.workerId, history);
      this.sortedWorkers = null;
    }
    insertByValidFrom(history, snapshot);
  }
  rememberCard(record) {
    this.cards.set(record.cardHash, record);
  }
  asOf(workerId, at) {
    const history = this.history.get(workerId);
    return history === void 0 ? void 0 : latestAtOrBefore(history, at);
  }
  knows(workerId) {
    return this.history.has(workerId);
  }
  workers() {
    this.sortedWorkers ??= [...this.history.keys()].sort();
    return this.sortedWorkers;
  }
  card(cardHash2) {
    return this.cards.get(cardHash2);
  }
  historyOf(workerId) {
    return this.history.get(workerId) ?? [];
  }
  /** Every snapshot, per worker in validFrom order: what a compacted-topic rebuild would feed back. */
  snapshots() {
    return this.workers().flatMap((w) => this.history.get(w) ?? []);
  }
};
var CapabilityLayer = class {
  constructor(base) {
    this.base = base;
  }
  base;
  history = /* @__PURE__ */ new Map();
  cards = /* @__PURE__ */ new Map();
  sortedWorkers = null;
  apply(snapshot) {
    let history = this.history.get(snapshot.workerId);
    if (history === void 0) {
      history = [...this.base.historyOf(snapshot.workerId)];
      this.history.set(snapshot.workerId, history);
      this.sortedWorkers = null;
    }
    insertByValidFrom(history, snapshot);
  }
  rememberCard(record) {
    this.cards.set(record.cardHash, record);
  }
  asOf(workerId, at) {
    const history = this.history.get(workerId);
    return history === void 0 ? this.base.asOf(workerId, at) : latestAtOrBefore(history, at);
  }
  knows(workerId) {
    return this.history.has(workerId) || this.base.knows(workerId);
  }
  workers() {
    if (this.history.size === 0) return this.base.workers();
    this.sortedWorkers ??= [.../* @__PURE__ */ new Set([...this.base.workers(), ...this.history.keys()])].sort();
    return this.sortedWorkers;
  }
  card(cardHash2) {
    return this.cards.get(cardHash2) ?? this.base.card(cardHash2);
  }
  historyOf(workerId) {
    return this.history.get(workerId) ?? this.base.historyOf(workerId);
  }
};

// packages/core/src/correlation/codec.ts
import avro2 from "avsc";

// packages/core/src/v1/correlation-state.ts
function initialCorrelationState() {
  return {
    version: 1,
    correlationId: null,
    status: "open",
    seenEventIds: [],
    attempts: [],
    lastState: null,
    terminalTaskIds: [],
    outputs: [],
    parkedCanaries: [],
    loss: null,
    lostTaskIds: [],
    reported: []
  };
}
function serializeCorrelationState(state3) {
  return JSON.stringify(state3);
}
var CorrelationStateFormatError = class extends Error {
};
function deserializeCorrelationState(text) {
  const value = JSON.parse(text);
  const v = value;
  if (typeof v !== "object" || v === null || v.version !== 1 || !Array.isArray(v.seenEventIds) || !Array.isArray(v.attempts)) {
    throw new CorrelationStateFormatError("not a version 1 correlation state");
  }
  return { ...initialCorrelationState(), ...v };
}
function attemptOf(state3, serverTaskId) {
  return state3.attempts.find((a) => a.serverTaskIds.includes(serverTaskId));
}
function latestAttempt(state3) {
  return state3.attempts[state3.attempts.length - 1];
}
function maxAttemptNumber(state3) {
  return state3.attempts.reduce((m, a) => Math.max(m, a.attempt), 0);
}

// packages/core/src/correlation/state.ts
var dedupeWindow = 512;
var limits = {
  tasks: 128,
  artifacts: 256,
  attempts: 64,
  reported: 256,
  canaries: 32
};
function taskOf(s, workerId, serverTaskId) {
  for (const t of s.tasks) if (t.serverTaskId === serverTaskId && t.workerId === workerId) return t;
  return void 0;
}
function canaryOf(s, workerId, serverTaskId) {
  for (const c of s.canaries) if (c.serverTaskId === serverTaskId && c.workerId === workerId) return c;
  return void 0;
}
function artifactOf(t, artifactId) {
  for (const a of t.artifacts) if (a.artifactId === artifactId) return a;
  return void 0;
}
function initialState() {
  return {
    model: 2,
    correlationId: null,
    status: "open",
    recent: [],
    recentHead: 0,
    recentSet: null,
    attempts: [],
    tasks: [],
    canaries: [],
    loss: null,
    blockedAt: null,
    reported: /* @__PURE__ */ new Set()
  };
}
function cloneState(s) {
  const tasks = s.tasks.map((t) => ({ ...t, last: t.last === null ? null : { ...t.last }, artifacts: t.artifacts.map((a) => ({ ...a })) }));
  return {
    model: 2,
    correlationId: s.correlationId,
    status: s.status,
    recent: s.recent.slice(),
    recentHead: s.recentHead,
    recentSet: s.recentSet === null ? null : new Set(s.recentSet),
    attempts: s.attempts.map((a) => ({ ...a, taskCount: a.taskCount })),
    tasks,
    canaries: s.canaries.map((c) => ({ ...c })),
    loss: s.loss === null ? null : { ...s.loss },
    blockedAt: s.blockedAt,
    reported: new Set(s.reported)
  };
}
function latestAttempt2(s) {
  return s.attempts[s.attempts.length - 1];
}
function maxAttempt(s) {
  let m = 0;
  for (const a of s.attempts) if (a.attempt > m) m = a.attempt;
  return m;
}
function attemptNumbered(s, n) {
  for (let i = s.attempts.length - 1; i >= 0; i--) if (s.attempts[i].attempt === n) return s.attempts[i];
  return void 0;
}
function recentInOrder(s) {
  return s.recentHead === 0 ? s.recent.slice() : [...s.recent.slice(s.recentHead), ...s.recent.slice(0, s.recentHead)];
}

// packages/core/src/correlation/migrate.ts
function fromV1(v1) {
  const s = initialState();
  s.correlationId = v1.correlationId;
  s.status = v1.status;
  s.recent = v1.seenEventIds.slice(-dedupeWindow);
  s.recentSet = s.recent.length > 32 ? new Set(s.recent) : null;
  for (const a of v1.attempts) {
    const outputs = v1.outputs.filter((o) => o.attempt === a.attempt);
    s.attempts.push({ attempt: a.attempt, workerId: a.workerId, skillId: a.skillId, messageId: a.messageId, acceptedOutputModes: a.acceptedOutputModes, dispatchedAt: a.dispatchedAt, dispatchEventId: a.dispatchEventId, taskCount: a.serverTaskIds.length, artifactCount: outputs.length });
    const mine = [];
    for (const id of a.serverTaskIds) {
      const last = v1.lastState !== null && v1.lastState.serverTaskId === id && v1.lastState.workerId === a.workerId ? v1.lastState : null;
      mine.push({
        workerId: a.workerId,
        serverTaskId: id,
        attempt: a.attempt,
        contextId: null,
        last: last === null ? null : { state: last.state, rawState: last.rawState, observer: last.observer, occurredAt: last.occurredAt, eventId: last.eventId },
        terminal: v1.terminalTaskIds.includes(id),
        lost: v1.lostTaskIds.includes(id),
        artifacts: []
      });
    }
    s.tasks.push(...mine);
    const first = mine[0];
    outputs.forEach((o, i) => first?.artifacts.push({ artifactId: o.output, attempt: a.attempt, name: o.output, ordinal: i + 1, mediaTypes: o.mediaTypes, complete: true, eventId: o.eventId }));
  }
  for (const c of v1.parkedCanaries) s.canaries.push({ ...c, parkedAt: 0, lost: false });
  if (v1.loss !== null) s.loss = { ...v1.loss, outcome: v1.status === "failed" ? "failed" : "indeterminate" };
  return s;
}

// packages/core/src/correlation/codec.ts
var StateFormatError = class extends Error {
  name = "StateFormatError";
};
var formatVersion = 2;
var state = { type: "enum", name: "TaskState", symbols: [...TaskStateSymbols] };
var nullableString = ["null", "string"];
var schema = {
  type: "record",
  name: "CorrelationState",
  namespace: "a2a.ledger.state.v2",
  fields: [
    { name: "correlationId", type: nullableString },
    { name: "status", type: { type: "enum", name: "Status", symbols: ["open", "terminal", "indeterminate", "redispatched", "blocked", "failed", "reconciled"] } },
    { name: "recent", type: { type: "array", items: "string" } },
    {
      name: "attempts",
      type: {
        type: "array",
        items: {
          type: "record",
          name: "Attempt",
          fields: [
            { name: "attempt", type: "int" },
            { name: "workerId", type: "string" },
            { name: "skillId", type: nullableString },
            { name: "messageId", type: nullableString },
            { name: "acceptedOutputModes", type: { type: "array", items: "string" } },
            { name: "dispatchedAt", type: ["null", "long"] },
            { name: "dispatchEventId", type: nullableString },
            { name: "taskCount", type: "int" },
            { name: "artifactCount", type: "int" }
          ]
        }
      }
    },
    {
      name: "tasks",
      type: {
        type: "array",
        items: {
          type: "record",
          name: "Task",
          fields: [
            { name: "workerId", type: "string" },
            { name: "serverTaskId", type: "string" },
            { name: "attempt", type: "int" },
            { name: "contextId", type: nullableString },
            { name: "last", type: ["null", { type: "record", name: "LastSeen", fields: [{ name: "state", type: state }, { name: "rawState", type: "string" }, { name: "observer", type: "string" }, { name: "occurredAt", type: "long" }, { name: "eventId", type: "string" }] }] },
            { name: "terminal", type: "boolean" },
            { name: "lost", type: "boolean" },
            {
              name: "artifacts",
              type: {
                type: "array",
                items: {
                  type: "record",
                  name: "Artifact",
                  fields: [
                    { name: "artifactId", type: "string" },
                    { name: "attempt", type: "int" },
                    { name: "name", type: nullableString },
                    { name: "ordinal", type: "int" },
                    { name: "mediaTypes", type: { type: "array", items: "string" } },
                    { name: "complete", type: "boolean" },
                    { name: "eventId", type: "string" }
                  ]
                }
              }
            }
          ]
        }
      }
    },
    {
      name: "canaries",
      type: {
        type: "array",
        items: {
          type: "record",
          name: "Canary",
          fields: [
            { name: "workerId", type: "string" },
            { name: "serverTaskId", type: "string" },
            { name: "state", type: "TaskState" },
            { name: "cardHash", type: "string" },
            { name: "probeEventId", type: "string" },
            { name: "parkedAt", type: "long" },
            { name: "lost", type: "boolean" }
          ]
        }
      }
    },
    {
      name: "loss",
      type: [
        "null",
        {
          type: "record",
          name: "Loss",
          fields: [
            { name: "workerId", type: "string" },
            { name: "serverTaskId", type: "string" },
            { name: "attempt", type: "int" },
            { name: "lastState", type: "TaskState" },
            { name: "eventId", type: "string" },
            { name: "outcome", type: { type: "enum", name: "LossOutcome", symbols: ["indeterminate", "failed"] } }
          ]
        }
      ]
    },
    { name: "blockedAt", type: ["null", "long"] },
    { name: "reported", type: { type: "array", items: "string" } }
  ]
};
var stateType = avro2.Type.forSchema(schema);
var maxStateBytes = 512 * 1024;
function essentials(s) {
  const latest2 = s.attempts[s.attempts.length - 1]?.attempt;
  const needed = (t) => t.attempt === latest2 || s.loss !== null && t.workerId === s.loss.workerId && t.serverTaskId === s.loss.serverTaskId;
  return { ...s, recent: [], reported: [], canaries: [], tasks: s.tasks.filter(needed).map((t) => ({ ...t, artifacts: [] })) };
}
function encodeState(s) {
  const record = { correlationId: s.correlationId, status: s.status, recent: recentInOrder(s), attempts: s.attempts, tasks: s.tasks, canaries: s.canaries, loss: s.loss, blockedAt: s.blockedAt, reported: [...s.reported] };
  let body = stateType.toBuffer(record);
  if (body.length + 1 > maxStateBytes) body = stateType.toBuffer(essentials(record));
  const out = new Uint8Array(body.length + 1);
  out[0] = formatVersion;
  out.set(body, 1);
  return out;
}
function decodeState(bytes) {
  if (bytes[0] === 123) {
    let v1;
    try {
      v1 = deserializeCorrelationState(new TextDecoder().decode(bytes));
    } catch (error) {
      throw new StateFormatError(`not a correlation state: ${error.message}`);
    }
    return fromV1(v1);
  }
  if (bytes[0] !== formatVersion) throw new StateFormatError(`not a correlation state: format byte ${bytes[0] ?? "(none)"}`);
  let e;
  try {
    e = stateType.fromBuffer(Buffer.from(bytes.buffer, bytes.byteOffset + 1, bytes.byteLength - 1));
  } catch (error) {
    throw new StateFormatError(`not a correlation/2 state: ${error.message}`);
  }
  return { model: 2, ...e, recentHead: 0, recentSet: e.recent.length > 32 ? new Set(e.recent) : null, reported: new Set(e.reported) };
}

// packages/core/src/correlation/artifacts.ts
var lastArtifact;
var lastMediaTypes = [];
function artifactMediaTypes(a) {
  if (a === lastArtifact) return lastMediaTypes;
  let modes;
  if (a.parts.length === 1) {
    const m = a.parts[0].mediaType;
    modes = m === null ? [] : [essence(m)];
  } else {
    const set = /* @__PURE__ */ new Set();
    for (const p of a.parts) if (p.mediaType !== null) set.add(essence(p.mediaType));
    modes = [...set].sort();
  }
  lastArtifact = a;
  lastMediaTypes = modes;
  return modes;
}
function sameOutput(a, b) {
  return a.name !== null && b.name !== null ? a.name === b.name : a.ordinal === b.ordinal;
}
function outputLabel(a, b) {
  return a.name !== null && b.name !== null ? a.name : `#${a.ordinal}`;
}
var sameMediaTypes = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
function artifactAfter(existing, obs2, ordinalIfNew, taskEnded) {
  const modes = artifactMediaTypes(obs2);
  const complete = taskEnded || obs2.lastChunk !== false || (existing?.complete ?? false);
  if (existing === void 0) return { name: obs2.name, ordinal: ordinalIfNew, mediaTypes: modes, complete, wasComplete: false };
  const merged = modes.every((m) => existing.mediaTypes.includes(m)) ? existing.mediaTypes : [.../* @__PURE__ */ new Set([...existing.mediaTypes, ...modes])].sort();
  return { name: existing.name ?? obs2.name, ordinal: existing.ordinal, mediaTypes: merged, complete, wasComplete: existing.complete };
}

// packages/core/src/correlation/attempts.ts
function openAttemptOn(s, workerId) {
  for (let i = s.attempts.length - 1; i >= 0; i--) {
    const a = s.attempts[i];
    if (a.workerId === workerId && a.taskCount === 0) return a;
  }
  return void 0;
}
function attemptFor(s, workerId, serverTaskId) {
  const task2 = taskOf(s, workerId, serverTaskId);
  return task2 !== void 0 ? attemptNumbered(s, task2.attempt) : openAttemptOn(s, workerId);
}
function termsFor(s, workerId, serverTaskId) {
  return attemptFor(s, workerId, serverTaskId) ?? s.attempts[s.attempts.length - 1];
}
function attemptNumberFor(s, workerId, serverTaskId) {
  return attemptFor(s, workerId, serverTaskId)?.attempt ?? maxAttempt(s) + 1;
}
function supersededBy(s, attempt) {
  const latest2 = s.attempts[s.attempts.length - 1];
  return latest2 !== void 0 && latest2.attempt > attempt ? latest2 : void 0;
}

// packages/core/src/correlation/trim.ts
function removeFirst(items, ...preferences) {
  for (const ok of preferences) {
    const i = items.findIndex(ok);
    if (i !== -1) {
      items.splice(i, 1);
      return;
    }
  }
}
function artifactCount(s) {
  let n = 0;
  for (const t of s.tasks) n += t.artifacts.length;
  return n;
}
function trim(s) {
  if (s.tasks.length <= limits.tasks && s.attempts.length <= limits.attempts && s.reported.size <= limits.reported && s.canaries.length <= limits.canaries && artifactCount(s) <= limits.artifacts) return;
  const latest2 = latestAttempt2(s)?.attempt ?? 0;
  const loss = s.loss;
  const reconciling = (t) => loss !== null && t.workerId === loss.workerId && t.serverTaskId === loss.serverTaskId;
  const superseded = (t) => t.attempt !== latest2 && !reconciling(t);
  while (s.tasks.length > limits.tasks) removeFirst(s.tasks, (t) => superseded(t) && (t.terminal || t.lost), superseded, (t) => !reconciling(t));
  while (artifactCount(s) > limits.artifacts) {
    const owner = s.tasks.find((t) => superseded(t) && t.artifacts.some((a) => a.complete)) ?? s.tasks.find((t) => t.artifacts.some((a) => a.complete)) ?? s.tasks.find((t) => t.artifacts.length > 0);
    if (owner === void 0) break;
    removeFirst(owner.artifacts, (a) => a.complete, () => true);
  }
  while (s.attempts.length > limits.attempts) {
    const keep = (n) => n === latest2 || loss !== null && n === loss.attempt;
    const i = s.attempts.findIndex((a) => !keep(a.attempt) && !s.tasks.some((t) => t.attempt === a.attempt));
    const victim = i !== -1 ? i : s.attempts.findIndex((a) => !keep(a.attempt));
    if (victim === -1) break;
    const [gone] = s.attempts.splice(victim, 1);
    s.tasks = s.tasks.filter((t) => t.attempt !== gone?.attempt);
  }
  for (const key of s.reported) {
    if (s.reported.size <= limits.reported) break;
    s.reported.delete(key);
  }
  while (s.canaries.length > limits.canaries) removeFirst(s.canaries, (c) => c.lost, () => true);
}

// packages/core/src/correlation/evolve.ts
function hash64(text) {
  let a = 2166136261;
  let b = 16777619 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 16777619);
    b = Math.imul(b ^ c, 1540483477);
  }
  return (a >>> 0).toString(16).padStart(8, "0") + (b >>> 0).toString(16).padStart(8, "0");
}
function reportKey(v) {
  if (v.kind === "DIVERGENT_ARTIFACTS") return hash64(`${v.kind}|${v.output ?? ""}|${v.attempts.join(",")}`);
  return hash64(`${v.kind}|${v.workerId ?? ""}|${v.serverTaskId ?? ""}|${v.skillId ?? ""}|${v.observed}|${v.allowed.join(",")}`);
}
var scanLimit = 32;
function isDuplicate(s, eventId) {
  if (s.recentSet !== null) return s.recentSet.has(eventId);
  for (let i = 0; i < s.recent.length; i++) if (s.recent[i] === eventId) return true;
  return false;
}
function remember(s, eventId) {
  if (s.recent.length < dedupeWindow) {
    s.recent.push(eventId);
    if (s.recentSet !== null) s.recentSet.add(eventId);
    else if (s.recent.length > scanLimit) s.recentSet = new Set(s.recent);
    return;
  }
  const set = s.recentSet;
  set.delete(s.recent[s.recentHead]);
  set.add(eventId);
  s.recent[s.recentHead] = eventId;
  s.recentHead = (s.recentHead + 1) % dedupeWindow;
}
function dispatch(s, obs2) {
  for (const a of s.attempts) if (a.messageId === obs2.messageId && a.workerId === obs2.workerId) return;
  for (let i = s.attempts.length - 1; i >= 0; i--) {
    const a = s.attempts[i];
    if (a.workerId === obs2.workerId && a.messageId === null) {
      a.skillId = obs2.skillId;
      a.messageId = obs2.messageId;
      a.acceptedOutputModes = obs2.acceptedOutputModes;
      a.dispatchedAt = obs2.occurredAt;
      a.dispatchEventId = obs2.eventId;
      return;
    }
  }
  const attempt = Math.max(obs2.attempt, maxAttempt(s) + 1);
  s.attempts.push({ attempt, workerId: obs2.workerId, skillId: obs2.skillId, messageId: obs2.messageId, acceptedOutputModes: obs2.acceptedOutputModes, dispatchedAt: obs2.occurredAt, dispatchEventId: obs2.eventId, taskCount: 0, artifactCount: 0 });
}
function task(s, workerId, serverTaskId) {
  const known = taskOf(s, workerId, serverTaskId);
  if (known !== void 0) return known;
  let record = openAttemptOn(s, workerId);
  if (record === void 0) {
    const previous = latestAttempt2(s);
    record = { attempt: maxAttempt(s) + 1, workerId, skillId: previous?.skillId ?? null, messageId: null, acceptedOutputModes: previous?.acceptedOutputModes ?? [], dispatchedAt: null, dispatchEventId: null, taskCount: 0, artifactCount: 0 };
    s.attempts.push(record);
  }
  record.taskCount += 1;
  const t = { workerId, serverTaskId, attempt: record.attempt, contextId: null, last: null, terminal: false, lost: false, artifacts: [] };
  s.tasks.push(t);
  return t;
}
function stateSeen(s, obs2) {
  const t = task(s, obs2.workerId, obs2.serverTaskId);
  if (obs2.contextId !== null) t.contextId = obs2.contextId;
  if (obs2.state === "TASK_STATE_UNSPECIFIED") return;
  t.lost = false;
  if (isTerminal(obs2.state)) {
    if (t.terminal) return;
    t.terminal = true;
    for (const a of t.artifacts) a.complete = true;
    if (s.status === "open" && latestAttempt2(s)?.attempt === t.attempt) s.status = "terminal";
  } else if (t.terminal || t.last !== null && obs2.occurredAt < t.last.occurredAt) return;
  if (t.last === null) t.last = { state: obs2.state, rawState: obs2.rawState, observer: obs2.observer, occurredAt: obs2.occurredAt, eventId: obs2.eventId };
  else {
    t.last.state = obs2.state;
    t.last.rawState = obs2.rawState;
    t.last.observer = obs2.observer;
    t.last.occurredAt = obs2.occurredAt;
    t.last.eventId = obs2.eventId;
  }
}
function artifact(s, obs2) {
  const t = task(s, obs2.workerId, obs2.serverTaskId);
  const modes = artifactMediaTypes(obs2);
  const complete = t.terminal || obs2.lastChunk !== false;
  const existing = artifactOf(t, obs2.artifactId);
  if (existing === void 0) {
    const attempt = attemptNumbered(s, t.attempt);
    attempt.artifactCount += 1;
    t.artifacts.push({ artifactId: obs2.artifactId, attempt: t.attempt, name: obs2.name, ordinal: attempt.artifactCount, mediaTypes: modes, complete, eventId: obs2.eventId });
    return;
  }
  if (existing.name === null) existing.name = obs2.name;
  if (complete) existing.complete = true;
  for (const m of modes) {
    if (!existing.mediaTypes.includes(m)) {
      existing.mediaTypes = [.../* @__PURE__ */ new Set([...existing.mediaTypes, ...modes])].sort();
      break;
    }
  }
}
function evolveObservation(s, obs2) {
  if (s.correlationId === null) s.correlationId = obs2.correlationId;
  remember(s, obs2.eventId);
  fold(s, obs2);
  trim(s);
}
function fold(s, obs2) {
  switch (obs2.type) {
    case "TaskDispatched":
      dispatch(s, obs2);
      return;
    case "TaskStateObserved":
      stateSeen(s, obs2);
      return;
    case "ArtifactEmitted":
      artifact(s, obs2);
      return;
    case "TaskNotFoundObserved": {
      const canary = canaryOf(s, obs2.workerId, obs2.serverTaskId);
      if (canary !== void 0) canary.lost = true;
      else if (taskOf(s, obs2.workerId, obs2.serverTaskId) === void 0 && openAttemptOn(s, obs2.workerId) !== void 0) task(s, obs2.workerId, obs2.serverTaskId);
      return;
    }
    case "ProbeCompleted":
      for (const c of obs2.parkedCanaries) {
        if (canaryOf(s, obs2.workerId, c.serverTaskId) === void 0) s.canaries.push({ workerId: obs2.workerId, serverTaskId: c.serverTaskId, state: c.state, cardHash: obs2.cardHash, probeEventId: obs2.eventId, parkedAt: obs2.occurredAt, lost: false });
      }
      return;
    case "AgentCardObserved":
      return;
  }
}
function lossOf(s, d, outcome) {
  const t = taskOf(s, d.workerId ?? "", d.serverTaskId);
  if (t === void 0) return;
  t.lost = true;
  if (latestAttempt2(s)?.attempt !== t.attempt) return;
  s.status = outcome;
  s.loss = { workerId: t.workerId, serverTaskId: t.serverTaskId, attempt: t.attempt, lastState: d.lastState, eventId: d.causeEventIds[0] ?? "", outcome };
}
function evolveDecision(s, d) {
  decisionFolded(s, d);
  trim(s);
}
function decisionFolded(s, d) {
  switch (d.type) {
    case "ContractViolation":
      s.reported.add(reportKey(d));
      return;
    case "TaskIndeterminate":
      lossOf(s, d, "indeterminate");
      return;
    case "TaskFailed":
      lossOf(s, d, "failed");
      return;
    case "RedispatchCommanded":
      s.status = "redispatched";
      s.blockedAt = null;
      if (!s.attempts.some((a) => a.attempt === d.attempt)) {
        s.attempts.push({ attempt: d.attempt, workerId: d.targetWorkerId, skillId: d.skillId, messageId: null, acceptedOutputModes: [...d.acceptedOutputModes], dispatchedAt: null, dispatchEventId: null, taskCount: 0, artifactCount: 0 });
      }
      return;
    case "ReconciliationBlocked":
      s.status = "blocked";
      s.blockedAt = d.decidedAt;
      return;
    case "TaskReconciled":
      s.status = "reconciled";
      s.loss = null;
      s.blockedAt = null;
      return;
    default:
      return;
  }
}

// packages/core/src/correlation/model.ts
var correlationModel = {
  initialState,
  isDuplicate,
  input(state3, observation, ctx, emitted, previous) {
    if (previous === void 0) return { observation, state: state3, priorCapabilities: ctx.capabilities, capabilities: ctx.capabilities, policy: ctx.policy, emitted };
    previous.observation = observation;
    previous.state = state3;
    previous.priorCapabilities = ctx.capabilities;
    previous.capabilities = ctx.capabilities;
    previous.policy = ctx.policy;
    previous.emitted = emitted;
    return previous;
  },
  commit(state3, _input, observation, decisions) {
    evolveObservation(state3, observation);
    for (const d of decisions) evolveDecision(state3, d);
    return state3;
  },
  apply(state3, decisions) {
    for (const d of decisions) evolveDecision(state3, d);
    return state3;
  },
  isBlocked: (state3) => state3.status === "blocked",
  correlationIdOf: (state3) => state3.correlationId ?? "",
  clone: cloneState,
  serialize: encodeState,
  deserialize: decodeState
};

// packages/core/src/decisions.ts
function decisionKind(d) {
  return d.type === "ContractViolation" ? d.kind : d.type;
}
var fieldsByType = /* @__PURE__ */ new Map();
function fieldsOf(type) {
  let fields = fieldsByType.get(type);
  if (fields === void 0) {
    const schema2 = avroSchemas.decisions[type];
    fields = schema2.fields.map((f) => ({ name: f.name, hasDefault: "default" in f, value: f.default }));
    fieldsByType.set(type, fields);
  }
  return fields;
}
function finalizeDecisions(obs2, drafts, rulesVersion, position = String) {
  return drafts.map((draft, i) => {
    const extra = draft.causeEventIds;
    const causes = extra === void 0 || extra.length === 0 ? [obs2.eventId] : [.../* @__PURE__ */ new Set([obs2.eventId, ...extra])];
    const given = draft;
    const envelope = {
      decisionId: `${obs2.eventId}:${decisionKind(draft)}:${position(i)}`,
      correlationId: obs2.correlationId,
      causeEventIds: causes,
      rulesVersion,
      decidedAt: obs2.occurredAt
    };
    const record = { type: draft.type };
    for (const f of fieldsOf(draft.type)) {
      if (f.name in envelope) record[f.name] = envelope[f.name];
      else if (given[f.name] !== void 0) record[f.name] = given[f.name];
      else record[f.name] = Array.isArray(f.value) ? [] : f.value;
    }
    return record;
  });
}
function violationKey(v) {
  if (v.kind === "DIVERGENT_ARTIFACTS") return `${v.kind}|${v.detail}`;
  return [v.kind, v.workerId ?? "", v.serverTaskId ?? "", v.observed, (v.allowed ?? []).join(",")].join("|");
}

// packages/core/src/v1/last-state.ts
function nextLastState(current, obs2) {
  if (obs2.state === "TASK_STATE_UNSPECIFIED") return current;
  const seen = {
    state: obs2.state,
    rawState: obs2.rawState,
    observer: obs2.observer,
    workerId: obs2.workerId,
    serverTaskId: obs2.serverTaskId,
    occurredAt: obs2.occurredAt,
    eventId: obs2.eventId
  };
  if (current === null) return seen;
  if (current.serverTaskId === obs2.serverTaskId && isTerminal(current.state) && !isTerminal(obs2.state)) return current;
  return obs2.occurredAt >= current.occurredAt ? seen : current;
}

// packages/core/src/v1/evolve.ts
var outputKey = (a) => a.name ?? a.artifactId;
function artifactMediaTypes2(a) {
  const set = /* @__PURE__ */ new Set();
  for (const p of a.parts) if (p.mediaType !== null) set.add(essence(p.mediaType));
  return [...set].sort();
}
function withDispatch(attempts, obs2) {
  if (attempts.some((a) => a.messageId === obs2.messageId && a.workerId === obs2.workerId)) return attempts;
  const dispatch2 = {
    skillId: obs2.skillId,
    messageId: obs2.messageId,
    acceptedOutputModes: obs2.acceptedOutputModes,
    dispatchedAt: obs2.occurredAt,
    dispatchEventId: obs2.eventId
  };
  const inferred = attempts.findIndex((a) => a.messageId === null && a.workerId === obs2.workerId);
  if (inferred !== -1) return attempts.map((a, i) => i === inferred ? { ...a, ...dispatch2 } : a);
  const number = Math.max(obs2.attempt, attempts.reduce((m, a) => Math.max(m, a.attempt), 0) + 1);
  return [...attempts, { attempt: number, workerId: obs2.workerId, serverTaskIds: [], ...dispatch2 }];
}
function withServerTask(state3, workerId, serverTaskId) {
  if (attemptOf(state3, serverTaskId) !== void 0) return state3.attempts;
  let open = -1;
  for (let i = state3.attempts.length - 1; i >= 0; i--) {
    const a = state3.attempts[i];
    if (a.workerId === workerId && a.serverTaskIds.length === 0) {
      open = i;
      break;
    }
  }
  if (open !== -1) return state3.attempts.map((a, i) => i === open ? { ...a, serverTaskIds: [serverTaskId] } : a);
  const previous = state3.attempts[state3.attempts.length - 1];
  return [
    ...state3.attempts,
    {
      attempt: maxAttemptNumber(state3) + 1,
      workerId,
      skillId: previous?.skillId ?? null,
      messageId: null,
      acceptedOutputModes: previous?.acceptedOutputModes ?? [],
      dispatchedAt: null,
      dispatchEventId: null,
      serverTaskIds: [serverTaskId]
    }
  ];
}
function withArtifact(state3, obs2) {
  const attempt = attemptOf(state3, obs2.serverTaskId)?.attempt ?? 0;
  const output = outputKey(obs2);
  const modes = artifactMediaTypes2(obs2);
  const i = state3.outputs.findIndex((o) => o.output === output && o.attempt === attempt);
  if (i === -1) return [...state3.outputs, { output, attempt, mediaTypes: modes, eventId: obs2.eventId }];
  const existing = state3.outputs[i];
  const union2 = [.../* @__PURE__ */ new Set([...existing.mediaTypes, ...modes])].sort();
  if (union2.length === existing.mediaTypes.length) return state3.outputs;
  return state3.outputs.map((o, j) => j === i ? { ...o, mediaTypes: union2 } : o);
}
function copy(s) {
  return {
    version: 1,
    correlationId: s.correlationId,
    status: s.status,
    seenEventIds: s.seenEventIds,
    attempts: s.attempts,
    lastState: s.lastState,
    terminalTaskIds: s.terminalTaskIds,
    outputs: s.outputs,
    parkedCanaries: s.parkedCanaries,
    loss: s.loss,
    lostTaskIds: s.lostTaskIds,
    reported: s.reported
  };
}
function evolveObservation2(state3, obs2) {
  const next = copy(state3);
  if (next.correlationId === null) next.correlationId = obs2.correlationId;
  const seen = state3.seenEventIds.slice();
  seen.push(obs2.eventId);
  next.seenEventIds = seen;
  switch (obs2.type) {
    case "TaskDispatched":
      next.attempts = withDispatch(state3.attempts, obs2);
      return next;
    case "TaskStateObserved": {
      next.attempts = withServerTask(state3, obs2.workerId, obs2.serverTaskId);
      next.lastState = nextLastState(state3.lastState, obs2);
      if (isTerminal(obs2.state)) {
        if (!state3.terminalTaskIds.includes(obs2.serverTaskId)) next.terminalTaskIds = [...state3.terminalTaskIds, obs2.serverTaskId];
        if (state3.status === "open") next.status = "terminal";
      }
      return next;
    }
    case "ArtifactEmitted":
      next.attempts = withServerTask(state3, obs2.workerId, obs2.serverTaskId);
      next.outputs = withArtifact(next, obs2);
      return next;
    case "TaskNotFoundObserved":
      if (state3.parkedCanaries.some((c) => c.serverTaskId === obs2.serverTaskId)) next.parkedCanaries = state3.parkedCanaries.filter((c) => c.serverTaskId !== obs2.serverTaskId);
      return next;
    case "ProbeCompleted": {
      const known = new Set(state3.parkedCanaries.map((c) => c.serverTaskId));
      const added = obs2.parkedCanaries.filter((c) => !known.has(c.serverTaskId)).map((c) => ({ workerId: obs2.workerId, serverTaskId: c.serverTaskId, state: c.state, cardHash: obs2.cardHash, probeEventId: obs2.eventId }));
      if (added.length > 0) next.parkedCanaries = [...state3.parkedCanaries, ...added];
      return next;
    }
    case "AgentCardObserved":
      return next;
  }
}
function withStatus(state3, status) {
  const next = copy(state3);
  next.status = status;
  return next;
}
function evolveDecision2(state3, d) {
  switch (d.type) {
    case "ContractViolation": {
      const key = violationKey(d);
      if (state3.reported.includes(key)) return state3;
      const next = copy(state3);
      next.reported = [...state3.reported, key];
      return next;
    }
    case "TaskIndeterminate":
    case "TaskFailed": {
      const next = copy(state3);
      next.status = d.type === "TaskFailed" ? "failed" : "indeterminate";
      next.lostTaskIds = [...state3.lostTaskIds, d.serverTaskId];
      if (d.type === "TaskIndeterminate") {
        next.loss = {
          workerId: d.workerId ?? "",
          serverTaskId: d.serverTaskId,
          attempt: attemptOf(state3, d.serverTaskId)?.attempt ?? maxAttemptNumber(state3),
          lastState: d.lastState,
          eventId: d.causeEventIds[0] ?? ""
        };
      }
      return next;
    }
    case "RedispatchCommanded":
      return withStatus(state3, "redispatched");
    case "ReconciliationBlocked":
      return withStatus(state3, "blocked");
    case "TaskReconciled":
      return withStatus(state3, "reconciled");
    default:
      return state3;
  }
}
var observationTypes2 = /* @__PURE__ */ new Set(["AgentCardObserved", "TaskDispatched", "TaskStateObserved", "TaskNotFoundObserved", "ArtifactEmitted", "ProbeCompleted"]);
function evolve(state3, event) {
  return observationTypes2.has(event.type) ? evolveObservation2(state3, event) : evolveDecision2(state3, event);
}

// packages/core/src/v1/model.ts
var encoder = new TextEncoder();
var decoder = new TextDecoder();
var v1Model = {
  initialState: initialCorrelationState,
  isDuplicate: (state3, eventId) => state3.seenEventIds.includes(eventId),
  input: (before, observation, ctx, emitted) => ({ observation, before, state: evolve(before, observation), priorCapabilities: ctx.capabilities, capabilities: ctx.capabilities, policy: ctx.policy, emitted }),
  commit(_before, input, _observation, decisions) {
    let next = input.state;
    for (const d of decisions) next = evolve(next, d);
    return next;
  },
  apply(state3, decisions) {
    let next = state3;
    for (const d of decisions) next = evolve(next, d);
    return next;
  },
  // default/1 does not re-examine blocked correlations.
  isBlocked: () => false,
  correlationIdOf: (state3) => state3.correlationId ?? "",
  // States are never mutated: sharing them is safe.
  clone: (state3) => state3,
  serialize: (state3) => encoder.encode(serializeCorrelationState(state3)),
  deserialize: (bytes) => deserializeCorrelationState(decoder.decode(bytes))
};

// packages/core/src/decider.ts
function rulesByType(rules) {
  const byType = {};
  for (const type of observationTypes) byType[type] = rules.filter((r) => r.on === void 0 || r.on.includes(type));
  return byType;
}
function engine(ruleSet, rules, model, recover) {
  const byType = rulesByType(rules);
  let previous;
  const drafts = [];
  const none2 = Object.freeze([]);
  const nothing = (state3) => ({ decisions: none2, capabilityUpdates: none2, cards: none2, state: state3 });
  return {
    rulesVersion: ruleSet.rulesVersion,
    ruleSet,
    initialState: () => model.initialState(),
    clone: (state3) => model.clone(state3),
    serialize: (state3) => model.serialize(state3),
    deserialize: (bytes) => model.deserialize(bytes),
    isBlocked: (state3) => model.isBlocked(state3),
    reexamine(ctx, opaqueState) {
      const state3 = opaqueState;
      const found = recover?.(state3, ctx.capabilities);
      if (found === void 0) return nothing(state3);
      const correlationId = model.correlationIdOf(state3);
      const decisions = finalizeDecisions({ ...found.cause, correlationId }, [found.decision], ruleSet.rulesVersion, () => correlationId);
      return { decisions, capabilityUpdates: none2, cards: none2, state: model.apply(state3, decisions) };
    },
    step(ctx, opaqueState, observation) {
      const state3 = opaqueState;
      if (model.isDuplicate(state3, observation.eventId)) return nothing(state3);
      if (drafts.length !== 0) drafts.length = 0;
      let updates = none2;
      let cards = none2;
      let layer;
      const input = model.input(state3, observation, ctx, drafts, previous);
      previous = input;
      for (const rule of byType[observation.type]) {
        const out = rule.apply(input);
        for (const d of out.decisions) drafts.push(d);
        if (out.capabilityUpdates.length === 0 && out.cards.length === 0) continue;
        if (layer === void 0) {
          layer = new CapabilityLayer(ctx.capabilities);
          input.capabilities = layer;
          updates = [];
          cards = [];
        }
        for (const c of out.cards) {
          layer.rememberCard(c);
          cards.push(c);
        }
        for (const s of out.capabilityUpdates) {
          layer.apply(s);
          updates.push(s);
        }
      }
      const decisions = drafts.length === 0 ? none2 : finalizeDecisions(observation, drafts, ruleSet.rulesVersion);
      const next = model.commit(state3, input, observation, decisions);
      return { decisions, capabilityUpdates: updates, cards, state: next };
    }
  };
}
function createDecider(ruleSet) {
  if (ruleSet.model === "correlation/1") return engine(ruleSet, ruleSet.rules, v1Model, void 0);
  const recover = ruleSet.recover;
  return engine(ruleSet, ruleSet.rules, correlationModel, recover === void 0 ? void 0 : (state3, capabilities3) => recover({ state: state3, capabilities: capabilities3 }));
}

// packages/core/src/fold.ts
function applyCapabilityUpdates(table, derived) {
  for (const c of derived.cards) table.rememberCard(c);
  for (const s of derived.capabilityUpdates) table.apply(s);
}

// packages/core/src/timestamp.ts
var iso = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?([Zz]|[+-]\d{2}(?::?\d{2})?)$/;
function daysFromCivil(y, m, d) {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}
var daysInMonth = (y, m) => m === 2 ? y % 4 === 0 && y % 100 !== 0 || y % 400 === 0 ? 29 : 28 : [4, 6, 9, 11].includes(m) ? 30 : 31;
function parseIsoTimestamp(text) {
  const m = iso.exec(text);
  if (m === null) return null;
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number);
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || h > 23 || mi > 59 || s > 59) return null;
  const ms = m[7] === void 0 ? 0 : Math.floor(Number(`0.${m[7]}`) * 1e3 + 1e-6);
  let offsetMinutes = 0;
  const zone = m[8];
  if (zone !== "Z" && zone !== "z") {
    const sign = zone.startsWith("-") ? -1 : 1;
    const digits = zone.slice(1).replace(":", "");
    const oh = Number(digits.slice(0, 2));
    const om = digits.length > 2 ? Number(digits.slice(2, 4)) : 0;
    if (oh > 23 || om > 59) return null;
    offsetMinutes = sign * (oh * 60 + om);
  }
  return ((daysFromCivil(y, mo, d) * 24 + h) * 60 + mi) * 6e4 + s * 1e3 + ms - offsetMinutes * 6e4;
}
function toEpochMillis(value) {
  if (typeof value === "number") {
    return Number.isSafeInteger(value) ? { ok: true, value } : { ok: false, message: `expected integer epoch milliseconds, got ${value}` };
  }
  if (typeof value === "string") {
    const ms = parseIsoTimestamp(value);
    return ms === null ? { ok: false, message: `expected an ISO-8601 date-time with offset (e.g. 2025-01-31T12:00:00Z), got ${JSON.stringify(value)}` } : { ok: true, value: ms };
  }
  return { ok: false, message: "expected epoch milliseconds or an ISO-8601 date-time" };
}

// packages/core/src/ingest-json.ts
var channel = lookupOf(channelSpellings);
var partKind = lookupOf(partKindSpellings);
var channelList = spellingsOf(channelSpellings).join(", ");
var partKindList = spellingsOf(partKindSpellings).join(", ");
var isRecord3 = (v) => typeof v === "object" && v !== null && !Array.isArray(v);
var join = (path, key) => typeof key === "number" ? `${path}[${key}]` : path === "" ? key : `${path}.${key}`;
function deeperThan(value, max, depth = 1) {
  if (typeof value !== "object" || value === null) return false;
  if (depth > max) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (deeperThan(value[i], max, depth + 1)) return true;
    return false;
  }
  for (const key in value) if (Object.hasOwn(value, key) && deeperThan(value[key], max, depth + 1)) return true;
  return false;
}
function tooDeep(value, max) {
  return deeperThan(value, max) ? deepPath(value, max) : null;
}
function deepPath(value, max, path = "", depth = 1) {
  if (typeof value !== "object" || value === null) return null;
  if (depth > max) return path;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const p = deepPath(value[i], max, join(path, i), depth + 1);
      if (p !== null) return p;
    }
    return null;
  }
  for (const key of Object.keys(value)) {
    const p = deepPath(value[key], max, join(path, key), depth + 1);
    if (p !== null) return p;
  }
  return null;
}
var shapes = /* @__PURE__ */ new Map();
function shapeOf(type) {
  let shape = shapes.get(type);
  if (shape === void 0) {
    const fields = avroSchemas.observations[type].fields;
    shape = { fields, declared: new Set(fields.map((f) => f.name)) };
    shapes.set(type, shape);
  }
  return shape;
}
function isNullable(field) {
  return Array.isArray(field.type) && field.type.includes("null");
}
function state2(value, path, issues) {
  if (typeof value !== "string") {
    issues.push({ path, message: "expected a task state string (v1.0 or v0.3 spelling)" });
    return void 0;
  }
  const s = normalizeTaskState(value);
  if (s === null) issues.push({ path, message: `unknown task state ${JSON.stringify(value)}` });
  return s ?? void 0;
}
function states(value, path, issues) {
  if (!Array.isArray(value)) return value;
  return value.map((v, i) => state2(v, join(path, i), issues) ?? v);
}
function parts(value, path, issues) {
  if (!Array.isArray(value)) return value;
  return value.map((part, i) => {
    if (!isRecord3(part)) return part;
    const { mimeType, ...out } = part;
    if (mimeType !== void 0) {
      if (out["mediaType"] !== void 0) issues.push({ path: join(join(path, i), "mimeType"), message: "give mediaType or its v0.3 name mimeType, not both" });
      else out["mediaType"] = mimeType;
    }
    if (out["mediaType"] === void 0) out["mediaType"] = null;
    if (typeof out["kind"] === "string") {
      const kind = partKind(out["kind"]);
      if (kind !== null) out["kind"] = kind;
      else issues.push({ path: join(join(path, i), "kind"), message: `expected one of ${partKindList}, got ${JSON.stringify(out["kind"].slice(0, 40))}` });
    }
    return out;
  });
}
function canaries(value, path, issues) {
  if (!Array.isArray(value)) return value;
  return value.map((c, i) => {
    if (!isRecord3(c) || c["state"] === void 0) return c;
    return { ...c, state: state2(c["state"], join(join(path, i), "state"), issues) ?? c["state"] };
  });
}
function card(input, issues, maxDepth, depthChecked) {
  const raw = input["card"];
  let parsed;
  let text;
  if (typeof raw === "string") {
    try {
      parsed = JSON.parse(raw);
    } catch (e) {
      issues.push({ path: "card", message: `card is not JSON text: ${e.message}` });
      return void 0;
    }
    text = raw;
  } else {
    parsed = raw;
    text = JSON.stringify(raw);
  }
  if (!isRecord3(parsed)) {
    issues.push({ path: "card", message: "expected the Agent Card as a JSON object (or its JSON text)" });
    return void 0;
  }
  const deep = depthChecked && typeof raw !== "string" ? null : tooDeep(parsed, maxDepth);
  if (deep !== null) {
    issues.push({ path: join("card", deep), message: `nested deeper than ${maxDepth} levels` });
    return void 0;
  }
  try {
    return { text, hash: cardHash(parsed) };
  } catch (e) {
    if (!(e instanceof CanonicalJsonError)) throw e;
    issues.push({ path: "card", message: `the card is not I-JSON (RFC 7493): ${e.message}` });
    return void 0;
  }
}
function parseObservation(input, options = {}) {
  const maxDepth = options.maxDepth ?? 32;
  if (!isRecord3(input)) {
    const got = Array.isArray(input) ? "an array" : input === null ? "null" : typeof input;
    return { ok: false, issues: [{ path: "", message: `expected one observation as a JSON object, got ${got}` }] };
  }
  const type = input["type"];
  if (type === void 0) return { ok: false, issues: [{ path: "type", message: "missing (one of the observation types)" }] };
  if (!isKnownType("observations", type)) {
    return { ok: false, issues: [{ path: "type", message: `unknown observation type ${JSON.stringify(type)}; expected one of ${observationTypeNames.join(", ")}` }] };
  }
  const deep = tooDeep(input, maxDepth + 1);
  if (deep !== null && !deep.startsWith("card")) return { ok: false, issues: [{ path: deep, message: `nested deeper than ${maxDepth} levels` }] };
  const { fields, declared } = shapeOf(type);
  const issues = [];
  for (const key of Object.keys(input)) if (key !== "type" && !declared.has(key)) issues.push({ path: key, message: "unknown field" });
  const record = {};
  for (const field of fields) {
    const name = field.name;
    const value = input[name];
    if (type === "AgentCardObserved" && (name === "card" || name === "cardHash")) continue;
    if (name === "rawState") continue;
    if (value === void 0) {
      if ("default" in field) record[name] = Array.isArray(field.default) ? [] : field.default;
      else issues.push({ path: name, message: "missing" });
      continue;
    }
    if (value === null && isNullable(field)) {
      record[name] = null;
      continue;
    }
    switch (name) {
      case "occurredAt":
      case "cardFetchedAt": {
        const t = toEpochMillis(value);
        if (t.ok) record[name] = t.value;
        else issues.push({ path: name, message: t.message });
        break;
      }
      case "state":
        record[name] = state2(value, name, issues);
        break;
      case "statesObserved":
      case "reobservable":
        record[name] = states(value, name, issues);
        break;
      case "parkedCanaries":
        record[name] = canaries(value, name, issues);
        break;
      case "parts":
        record[name] = parts(value, name, issues);
        break;
      case "via":
        if (typeof value === "string" && channel(value) !== null) record[name] = channel(value);
        else issues.push({ path: name, message: `expected one of ${channelList}, got ${typeof value === "string" ? JSON.stringify(value.slice(0, 40)) : typeof value}` });
        break;
      case "errorCode":
        record[name] = typeof value === "number" ? String(value) : value;
        break;
      default:
        record[name] = value;
    }
  }
  if (type === "TaskStateObserved") {
    const raw = input["rawState"];
    record["rawState"] = raw === void 0 ? input["state"] : raw;
  }
  if (type === "AgentCardObserved") {
    if (input["card"] === void 0) issues.push({ path: "card", message: "missing" });
    else {
      const c = card(input, issues, maxDepth, deep === null);
      if (c !== void 0) {
        record["card"] = c.text;
        const given = input["cardHash"];
        if (given === void 0 || given === null) record["cardHash"] = c.hash;
        else if (typeof given !== "string") issues.push({ path: "cardHash", message: "expected a sha256 hex string" });
        else if (given.toLowerCase() !== c.hash) issues.push({ path: "cardHash", message: `does not match the card: its RFC 8785 sha256 is ${c.hash}` });
        else record["cardHash"] = c.hash;
      }
    }
  }
  const ordered = {};
  for (const f of fields) if (record[f.name] !== void 0) ordered[f.name] = record[f.name];
  if (issues.length === 0 && isValidRecord("observations", type, ordered)) return { ok: true, observation: { type, ...ordered } };
  const reported = issues.map((i) => i.path);
  if (reported.some((p) => covered(["card"], p))) reported.push("cardHash");
  for (const issue of validateRecord("observations", type, ordered)) {
    if (!covered(reported, issue.path)) issues.push(issue);
  }
  if (issues.length > 0) return { ok: false, issues };
  return { ok: true, observation: { type, ...ordered } };
}
function covered(reported, path) {
  return reported.some((p) => path === p || path.startsWith(`${p}.`) || path.startsWith(`${p}[`));
}

// packages/core/src/v1/capability-snapshots.ts
function snapshotFromCard(obs2, parsedCard) {
  const a = interpretCard(parsedCard);
  return {
    workerId: obs2.workerId,
    validFrom: obs2.occurredAt,
    causeEventId: obs2.eventId,
    cardHash: obs2.cardHash,
    vendor: a.vendor,
    taskStore: a.taskStore,
    advertisedStates: a.states,
    advertisedOutputModes: a.skills,
    defaultOutputModes: a.defaultOutputModes,
    verified: false,
    verifiedStates: [],
    verifiedOutputModes: [],
    durable: null,
    // The card travels with its snapshot, so a table rebuilt from a2a.capabilities.v1 can diff the next one (R8).
    cardUrl: obs2.cardUrl,
    card: obs2.card,
    cacheMaxAgeSeconds: obs2.cacheMaxAgeSeconds,
    verifiedSkills: []
  };
}
function mergeDurable2(a, b) {
  if (a === false || b === false) return false;
  if (a === true || b === true) return true;
  return null;
}
function snapshotFromProbe(current, probe) {
  const reobservable = new Set(probe.reobservable);
  const reached = probe.statesObserved.filter((s) => reobservable.has(s));
  const durable = mergeDurable2(current.verified ? current.durable : null, probe.durable);
  let states2 = sortStates([...current.verified ? current.verifiedStates : [], ...reached]);
  if (durable === false) states2 = states2.filter((s) => !isInterrupted(s));
  const modes = [.../* @__PURE__ */ new Set([...current.verified ? current.verifiedOutputModes : [], ...probe.emittedModes])].sort();
  return {
    ...current,
    validFrom: probe.occurredAt,
    causeEventId: probe.eventId,
    verified: true,
    verifiedStates: states2,
    verifiedOutputModes: modes,
    durable
  };
}
function snapshotRevokingInterrupted2(current, cause) {
  return {
    ...current,
    validFrom: cause.occurredAt,
    causeEventId: cause.eventId,
    verifiedStates: current.verifiedStates.filter((s) => !isInterrupted(s)),
    durable: false
  };
}
function parseCardText2(text) {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
function deriveCapabilities(view, obs2) {
  if (obs2.type === "AgentCardObserved") {
    const record = { cardHash: obs2.cardHash, cardUrl: obs2.cardUrl, card: obs2.card, cacheMaxAgeSeconds: obs2.cacheMaxAgeSeconds };
    const current = view.asOf(obs2.workerId, obs2.occurredAt);
    if (current !== void 0 && current.cardHash === obs2.cardHash) return { snapshots: [], cards: [record] };
    return { snapshots: [snapshotFromCard(obs2, parseCardText2(obs2.card))], cards: [record] };
  }
  if (obs2.type === "ProbeCompleted") {
    const current = view.asOf(obs2.workerId, obs2.occurredAt);
    if (current === void 0 || current.cardHash !== obs2.cardHash) return { snapshots: [], cards: [] };
    return { snapshots: [snapshotFromProbe(current, obs2)], cards: [] };
  }
  return { snapshots: [], cards: [] };
}

// packages/core/src/v1/rules/capability-rules.ts
function capabilities(input) {
  const obs2 = input.observation;
  const derived = deriveCapabilities(input.priorCapabilities, obs2);
  const decisions = [];
  if (obs2.type === "ProbeCompleted") {
    for (const s of derived.snapshots) {
      decisions.push({
        type: "CapabilitiesVerified",
        workerId: s.workerId,
        cardHash: s.cardHash,
        states: s.verifiedStates,
        outputModes: [{ skillId: obs2.skillId ?? "*", outputModes: [...new Set(obs2.emittedModes)].sort() }],
        durable: s.durable
      });
    }
  }
  return { decisions, capabilityUpdates: derived.snapshots, cards: derived.cards };
}

// packages/core/src/v1/rules/rule.ts
var noDecisions = [];
function decisionsOnly(rule) {
  return (input) => ({ decisions: rule(input), capabilityUpdates: [], cards: [] });
}
function partial(rule) {
  return (input) => {
    const o = rule(input);
    return { decisions: o.decisions ?? [], capabilityUpdates: o.capabilityUpdates ?? [], cards: o.cards ?? [] };
  };
}

// packages/core/src/v1/rules/violations.ts
function unreported(state3, drafts) {
  const seen = new Set(state3.reported);
  const out = [];
  for (const d of drafts) {
    const key = violationKey(d);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(d);
  }
  return out;
}

// packages/core/src/v1/rules/r1-states.ts
function r1States(input) {
  const obs2 = input.observation;
  if (obs2.type !== "TaskStateObserved" || obs2.state === "TASK_STATE_UNSPECIFIED") return noDecisions;
  const snap = input.capabilities.asOf(obs2.workerId, obs2.occurredAt);
  if (snap === void 0) return noDecisions;
  const base = { type: "ContractViolation", workerId: obs2.workerId, serverTaskId: obs2.serverTaskId, observed: obs2.state, cardHash: snap.cardHash };
  let violation = null;
  if (!snap.advertisedStates.includes(obs2.state)) {
    violation = { ...base, kind: "STATE_NOT_ADVERTISED", allowed: snap.advertisedStates, detail: `${obs2.observer} saw ${obs2.rawState} via ${obs2.via}; the card in force does not advertise it` };
  } else if (snap.verified && policyFor(input.policy, snap) === "verify" && !snap.verifiedStates.includes(obs2.state)) {
    violation = { ...base, kind: "STATE_NOT_VERIFIED", allowed: snap.verifiedStates, detail: `${obs2.observer} saw ${obs2.rawState} via ${obs2.via}; the probe of the card in force did not verify it` };
  }
  return violation === null ? noDecisions : unreported(input.state, [violation]);
}

// packages/core/src/v1/rules/r2-artifacts.ts
function r2Artifacts(input) {
  const obs2 = input.observation;
  if (obs2.type !== "ArtifactEmitted") return noDecisions;
  const modes = artifactMediaTypes2(obs2);
  if (modes.length === 0) return noDecisions;
  const attempt = attemptOf(input.state, obs2.serverTaskId);
  const skillId = attempt?.skillId ?? null;
  const accepted = attempt?.acceptedOutputModes ?? [];
  const snap = input.capabilities.asOf(obs2.workerId, obs2.occurredAt);
  const verify = snap !== void 0 && snap.verified && policyFor(input.policy, snap) === "verify";
  const out = [];
  const base = { type: "ContractViolation", workerId: obs2.workerId, serverTaskId: obs2.serverTaskId, cardHash: snap?.cardHash ?? null };
  const what = `artifact ${JSON.stringify(obs2.name ?? obs2.artifactId)}${skillId === null ? "" : ` of skill ${skillId}`}`;
  for (const mode of modes) {
    if (snap !== void 0) {
      const advertised = outputModesFor(snap, skillId);
      if (!mediaTypeAllowed(mode, advertised)) {
        out.push({ ...base, kind: "OUTPUT_MODE_NOT_ADVERTISED", observed: mode, allowed: advertised, detail: `${what} is ${mode}; the card in force at emission does not advertise it` });
      } else if (verify && !mediaTypeAllowed(mode, snap.verifiedOutputModes)) {
        out.push({ ...base, kind: "OUTPUT_MODE_NOT_VERIFIED", observed: mode, allowed: snap.verifiedOutputModes, detail: `${what} is ${mode}; the probe of the card in force never saw it emitted` });
      }
    }
    if (accepted.length > 0 && !mediaTypeAllowed(mode, accepted)) {
      out.push({ ...base, kind: "OUTPUT_MODE_NOT_NEGOTIATED", observed: mode, allowed: accepted, detail: `${what} is ${mode}; the dispatch accepted only ${accepted.join(", ")}` });
    }
  }
  return unreported(input.state, out);
}

// packages/core/src/v1/rules/r3-divergent.ts
var sameSet = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
function r3Divergent(input) {
  const obs2 = input.observation;
  if (obs2.type !== "ArtifactEmitted") return noDecisions;
  const output = outputKey(obs2);
  const attempt = attemptOf(input.state, obs2.serverTaskId)?.attempt ?? 0;
  const mine = input.state.outputs.find((o) => o.output === output && o.attempt === attempt);
  if (mine === void 0 || mine.mediaTypes.length === 0) return noDecisions;
  const others = input.state.outputs.filter((o) => o.output === output && o.attempt !== attempt && o.mediaTypes.length > 0);
  const out = [];
  for (const other of others) {
    if (sameSet(mine.mediaTypes, other.mediaTypes)) continue;
    const [lo, hi] = other.attempt < attempt ? [other.attempt, attempt] : [attempt, other.attempt];
    out.push({
      type: "ContractViolation",
      workerId: obs2.workerId,
      kind: "DIVERGENT_ARTIFACTS",
      serverTaskId: obs2.serverTaskId,
      observed: mine.mediaTypes.join(", "),
      allowed: other.mediaTypes,
      cardHash: input.capabilities.asOf(obs2.workerId, obs2.occurredAt)?.cardHash ?? null,
      detail: `output ${JSON.stringify(output)} differs between attempt ${lo} and attempt ${hi}`,
      causeEventIds: [other.eventId]
    });
  }
  return unreported(input.state, out);
}

// packages/core/src/v1/rules/r4-r5-not-found.ts
function r4r5NotFound(input) {
  const obs2 = input.observation;
  if (obs2.type !== "TaskNotFoundObserved") return noDecisions;
  const s = input.before;
  if (s.parkedCanaries.some((c) => c.serverTaskId === obs2.serverTaskId && c.workerId === obs2.workerId)) return noDecisions;
  if (s.lostTaskIds.includes(obs2.serverTaskId) || s.status === "failed" || s.status === "reconciled") return noDecisions;
  if (s.terminalTaskIds.includes(obs2.serverTaskId)) return noDecisions;
  const last = s.lastState;
  if (last !== null && isTerminal(last.state)) return noDecisions;
  const attempt = attemptOf(s, obs2.serverTaskId);
  const latest2 = latestAttempt(s);
  if (attempt !== void 0 && latest2 !== void 0 && attempt.attempt < latest2.attempt) return noDecisions;
  const lastState = last?.state ?? "TASK_STATE_UNSPECIFIED";
  const seen = last === null ? "no state was observed" : `the last observed state ${last.state} (seen by ${last.observer}) is not terminal`;
  const causes = last === null ? [] : [last.eventId];
  const snap = input.capabilities.asOf(obs2.workerId, obs2.occurredAt);
  if (policyFor(input.policy, snap) === "trust") {
    return [
      {
        type: "TaskFailed",
        workerId: obs2.workerId,
        serverTaskId: obs2.serverTaskId,
        lastState,
        reason: `TaskNotFound (${obs2.errorCode} on ${obs2.method}) while ${seen}; the worker is trusted (vendor ${snap?.vendor}, durable task store), so the loss is a failure`,
        causeEventIds: causes
      }
    ];
  }
  return [
    {
      type: "TaskIndeterminate",
      workerId: obs2.workerId,
      serverTaskId: obs2.serverTaskId,
      lastState,
      lastObserver: last?.observer ?? "",
      reason: `TaskNotFound (${obs2.errorCode} on ${obs2.method}) while ${seen}; under verify a lost task is indeterminate, not failed`,
      causeEventIds: causes
    }
  ];
}

// packages/core/src/v1/rules/eligibility.ts
function verdict(workerId, snap, need) {
  const no = (reason) => ({ workerId, eligible: false, reason });
  if (snap === void 0) return no("no card in force");
  if (!snap.verified) return no(`card ${snap.cardHash.slice(0, 12)} not verified by a probe yet`);
  if (need.skillId !== null && !snap.advertisedOutputModes.some((s) => s.skillId === need.skillId)) return no(`card does not offer skill ${need.skillId}`);
  if (!snap.verifiedStates.includes(need.state)) return no(`verified states [${snap.verifiedStates.join(", ")}] lack ${need.state}`);
  const accepted = need.acceptedOutputModes;
  const matching = accepted.length === 0 ? snap.verifiedOutputModes : snap.verifiedOutputModes.filter((m) => mediaTypeAllowed(m, accepted));
  if (accepted.length > 0 && matching.length === 0) {
    return no(`verified output modes [${snap.verifiedOutputModes.join(", ")}] outside accepted [${accepted.join(", ")}]`);
  }
  return { workerId, eligible: true, reason: `verifies ${need.state}; verified output modes [${matching.join(", ")}]` };
}
function verdicts(view, need, lost) {
  const all = view.workers().map(
    (w) => w === need.lostWorkerId && lost === "exclude" ? { workerId: w, eligible: false, reason: "lost the task in this state" } : verdict(w, view.asOf(w, need.at), need)
  );
  const chosen = all.find((v) => v.eligible && v.workerId !== need.lostWorkerId) ?? all.find((v) => v.eligible);
  return { all, chosen };
}

// packages/core/src/v1/rules/r6-reconcile.ts
function reconcile(input, onNoResume) {
  const lost = input.emitted.find((d) => d.type === "TaskIndeterminate");
  if (lost === void 0 || lost.type !== "TaskIndeterminate") return noDecisions;
  const attempt = attemptOf(input.state, lost.serverTaskId) ?? latestAttempt(input.state);
  const lostWorkerId = lost.workerId ?? "";
  const base = {
    lostWorkerId,
    skillId: attempt?.skillId ?? null,
    acceptedOutputModes: attempt?.acceptedOutputModes ?? [],
    at: input.observation.occurredAt
  };
  const command = (targetWorkerId, resumeState, candidates) => ({
    type: "RedispatchCommanded",
    workerId: lostWorkerId,
    targetWorkerId,
    fromServerTaskId: lost.serverTaskId,
    skillId: base.skillId,
    attempt: maxAttemptNumber(input.state) + 1,
    resumeState,
    acceptedOutputModes: [...base.acceptedOutputModes],
    candidates
  });
  const restartNeed = { ...base, state: "TASK_STATE_COMPLETED" };
  if (isInterrupted(lost.lastState)) {
    const resume = verdicts(input.capabilities, { ...base, state: lost.lastState }, "exclude");
    if (resume.chosen !== void 0) return [command(resume.chosen.workerId, lost.lastState, resume.all)];
    if (onNoResume === "restart") {
      const restart2 = verdicts(input.capabilities, restartNeed, "last-resort");
      if (restart2.chosen !== void 0) return [command(restart2.chosen.workerId, null, restart2.all)];
      return [blocked(lostWorkerId, lost.lastState, `no worker verifies ${lost.lastState}, and none verifies completing the task from scratch`, restart2.all)];
    }
    return [blocked(lostWorkerId, lost.lastState, `no worker verifies ${lost.lastState} with output modes the dispatch accepted`, resume.all)];
  }
  const restart = verdicts(input.capabilities, restartNeed, "last-resort");
  if (restart.chosen !== void 0) return [command(restart.chosen.workerId, null, restart.all)];
  return [blocked(lostWorkerId, lost.lastState, "no worker verifies completing the task from scratch", restart.all)];
}
function blocked(workerId, lastState, reason, candidates) {
  return { type: "ReconciliationBlocked", workerId, lastState, reason, candidates };
}
function r6Reconcile(onNoResume) {
  return (input) => reconcile(input, onNoResume);
}

// packages/core/src/v1/rules/r7-probes.ts
function r7Probes(input) {
  const obs2 = input.observation;
  if (obs2.type !== "AgentCardObserved") return noDecisions;
  const previous = input.priorCapabilities.asOf(obs2.workerId, obs2.occurredAt);
  if (previous !== void 0 && previous.cardHash === obs2.cardHash) return noDecisions;
  const firstContact = !input.priorCapabilities.knows(obs2.workerId);
  if (firstContact) {
    const current = input.capabilities.asOf(obs2.workerId, obs2.occurredAt);
    if (policyFor(input.policy, current) !== "verify") return noDecisions;
  }
  return [
    {
      type: "ProbeRequested",
      workerId: obs2.workerId,
      cardHash: obs2.cardHash,
      cardUrl: obs2.cardUrl,
      reason: firstContact ? "first-contact" : "card-changed"
    }
  ];
}

// packages/core/src/v1/rules/r8-cards.ts
function parse(text) {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
function cardChanged(input, obs2) {
  const previous = input.priorCapabilities.asOf(obs2.workerId, obs2.occurredAt);
  if (previous === void 0 || previous.cardHash === obs2.cardHash) return noDecisions;
  const before = input.priorCapabilities.card(previous.cardHash);
  const after = parse(obs2.card);
  const changes = before === void 0 ? [{ path: "", before: null, after: canonicalize(after) }] : diffCards(parse(before.card), after);
  return [{ type: "CardChanged", workerId: obs2.workerId, previousCardHash: previous.cardHash, cardHash: obs2.cardHash, changes }];
}
function cardAge(input, obs2) {
  if (obs2.cardFetchedAt === null) return noDecisions;
  const hash = obs2.cardHash ?? input.capabilities.asOf(obs2.workerId, obs2.cardFetchedAt)?.cardHash;
  const maxAge = hash === void 0 ? void 0 : input.capabilities.card(hash)?.cacheMaxAgeSeconds;
  if (maxAge === void 0 || maxAge === null) return noDecisions;
  const ageMs = obs2.occurredAt - obs2.cardFetchedAt;
  if (obs2.cardFetchedAt + maxAge * 1e3 >= obs2.occurredAt) return noDecisions;
  const violation = {
    type: "ContractViolation",
    workerId: obs2.workerId,
    kind: "CARD_USED_PAST_MAX_AGE",
    serverTaskId: null,
    observed: `${Math.floor(ageMs / 1e3)}s`,
    allowed: [`${maxAge}s`],
    cardHash: hash ?? null,
    detail: `${obs2.observer} dispatched on a card fetched ${ageMs} ms earlier; the worker allowed caching it for ${maxAge} s`
  };
  return input.state.reported.includes(violationKey(violation)) ? noDecisions : [violation];
}
function r8Cards(input) {
  const obs2 = input.observation;
  if (obs2.type === "AgentCardObserved") return cardChanged(input, obs2);
  if (obs2.type === "TaskDispatched") return cardAge(input, obs2);
  return noDecisions;
}

// packages/core/src/v1/rules/r9-durability.ts
function r9Durability(input) {
  const obs2 = input.observation;
  if (obs2.type !== "TaskNotFoundObserved") return {};
  const canary = input.before.parkedCanaries.find((c) => c.serverTaskId === obs2.serverTaskId && c.workerId === obs2.workerId);
  if (canary === void 0) return {};
  const current = input.capabilities.asOf(obs2.workerId, obs2.occurredAt);
  if (current === void 0) return {};
  const decisions = [];
  if (current.taskStore === "durable") {
    decisions.push(
      ...unreported(input.state, [
        {
          type: "ContractViolation",
          workerId: obs2.workerId,
          kind: "TASK_STORE_NOT_DURABLE",
          serverTaskId: obs2.serverTaskId,
          observed: `TaskNotFound (${obs2.errorCode}) for a canary parked in ${canary.state}`,
          allowed: ["durable"],
          cardHash: current.cardHash,
          detail: `the card claims a durable task store, but canary ${canary.serverTaskId} parked by probe ${canary.probeEventId} was lost`,
          causeEventIds: [canary.probeEventId]
        }
      ])
    );
  }
  if (!current.verified) return { decisions };
  const revoked = snapshotRevokingInterrupted2(current, obs2);
  decisions.push({
    type: "CapabilitiesVerified",
    workerId: obs2.workerId,
    cardHash: revoked.cardHash,
    states: revoked.verifiedStates,
    outputModes: [],
    durable: revoked.durable,
    causeEventIds: [canary.probeEventId]
  });
  return { decisions, capabilityUpdates: [revoked] };
}

// packages/core/src/v1/rules/reconciled.ts
function reconciled(input) {
  const obs2 = input.observation;
  const loss = input.before.loss;
  if (obs2.type !== "TaskStateObserved" || loss === null || !isTerminal(obs2.state)) return noDecisions;
  if (input.before.status === "reconciled" || input.before.status === "failed") return noDecisions;
  const attempt = attemptOf(input.state, obs2.serverTaskId);
  if (attempt === void 0 || attempt.attempt <= loss.attempt) return noDecisions;
  return [{ type: "TaskReconciled", workerId: obs2.workerId, serverTaskId: obs2.serverTaskId, state: obs2.state, attempt: attempt.attempt, causeEventIds: [loss.eventId] }];
}

// packages/core/src/v1/rules/rule-sets.ts
var common = (r6) => [
  { id: "capabilities", apply: partial(capabilities) },
  { id: "R8", apply: decisionsOnly(r8Cards) },
  { id: "R7", apply: decisionsOnly(r7Probes) },
  { id: "R1", apply: decisionsOnly(r1States) },
  { id: "R2", apply: decisionsOnly(r2Artifacts) },
  { id: "R3", apply: decisionsOnly(r3Divergent) },
  { id: "R9", apply: partial(r9Durability) },
  { id: "R4-R5", apply: decisionsOnly(r4r5NotFound) },
  r6,
  { id: "reconciled", apply: decisionsOnly(reconciled) }
];
var defaultRuleSetV1 = {
  name: "default",
  model: "correlation/1",
  rulesVersion: "default/1",
  rules: common({ id: "R6", apply: decisionsOnly(r6Reconcile("block")) })
};
var restartFromScratchRuleSetV1 = {
  name: "restart-from-scratch",
  model: "correlation/1",
  rulesVersion: "restart-from-scratch/1",
  rules: common({ id: "R6", apply: decisionsOnly(r6Reconcile("restart")) })
};

// packages/core/src/rules/rule.ts
var noOutput = { decisions: [], capabilityUpdates: [], cards: [] };
function decided(decisions) {
  return decisions.length === 0 ? noOutput : { decisions, capabilityUpdates: [], cards: [] };
}

// packages/core/src/rules/capabilities.ts
function capabilities2(input) {
  const obs2 = input.observation;
  if (obs2.type !== "AgentCardObserved" && obs2.type !== "ProbeCompleted") return noOutput;
  const derived = derive(input.priorCapabilities, obs2);
  if (derived.snapshots.length === 0 && derived.cards.length === 0) return noOutput;
  const decisions = obs2.type === "ProbeCompleted" ? derived.snapshots.map((s) => ({
    type: "CapabilitiesVerified",
    workerId: s.workerId,
    cardHash: s.cardHash,
    states: s.verifiedStates,
    outputModes: s.verifiedSkills.map((k) => ({ skillId: k.skillId ?? "*", outputModes: k.outputModes })),
    durable: s.durable,
    skills: s.verifiedSkills
  })) : [];
  return { decisions, capabilityUpdates: derived.snapshots, cards: derived.cards };
}

// packages/core/src/rules/violations.ts
function keyOf(d) {
  return reportKey({ kind: d.kind, workerId: d.workerId ?? null, serverTaskId: d.serverTaskId ?? null, skillId: d.skillId ?? null, observed: d.observed, allowed: d.allowed ?? [], output: d.output ?? null, attempts: d.attempts ?? [] });
}
function unreported2(state3, drafts) {
  if (drafts.length === 0) return [];
  const seen = /* @__PURE__ */ new Set();
  const out = [];
  for (const d of drafts) {
    const key = keyOf(d);
    if (state3.reported.has(key) || seen.has(key)) continue;
    seen.add(key);
    out.push(d);
  }
  return out;
}

// packages/core/src/rules/r1-states.ts
var reliedOnStates = /* @__PURE__ */ new Set(["TASK_STATE_INPUT_REQUIRED", "TASK_STATE_AUTH_REQUIRED", "TASK_STATE_COMPLETED"]);
function r1States2(input) {
  const obs2 = input.observation;
  if (obs2.type !== "TaskStateObserved" || obs2.state === "TASK_STATE_UNSPECIFIED") return noOutput;
  const snap = input.capabilities.asOf(obs2.workerId, obs2.occurredAt);
  if (snap === void 0) return noOutput;
  const advertised = snap.advertisedStates.includes(obs2.state);
  if (advertised && !reliedOnStates.has(obs2.state)) return noOutput;
  const skillId = termsFor(input.state, obs2.workerId, obs2.serverTaskId)?.skillId ?? null;
  const violation = (kind, allowed, why) => ({
    type: "ContractViolation",
    workerId: obs2.workerId,
    kind,
    serverTaskId: obs2.serverTaskId,
    observed: obs2.state,
    allowed,
    cardHash: snap.cardHash,
    skillId,
    detail: `${obs2.observer} saw ${obs2.rawState} via ${obs2.via}; ${why}`
  });
  if (!advertised) return decided(unreported2(input.state, [violation("STATE_NOT_ADVERTISED", snap.advertisedStates, "the card in force does not advertise it")]));
  const v = verifiedSkill(snap, skillId);
  if (v === void 0 || v.states.includes(obs2.state) || policyOf(input.policy, snap) !== "verify") return noOutput;
  return decided(unreported2(input.state, [violation("STATE_NOT_VERIFIED", v.states, `the probe of skill ${skillId ?? "(none)"} of the card in force did not verify it`)]));
}

// packages/core/src/rules/r2-artifacts.ts
function r2Artifacts2(input) {
  const obs2 = input.observation;
  if (obs2.type !== "ArtifactEmitted") return noOutput;
  const modes = artifactMediaTypes(obs2);
  if (modes.length === 0) return noOutput;
  const terms = termsFor(input.state, obs2.workerId, obs2.serverTaskId);
  const skillId = terms?.skillId ?? null;
  const accepted = terms?.acceptedOutputModes ?? [];
  const snap = input.capabilities.asOf(obs2.workerId, obs2.occurredAt);
  const judgeCard = snap !== void 0 && cardOffersSkill(snap, skillId);
  const advertised = judgeCard ? outputModesFor(snap, skillId) : [];
  const verified = judgeCard && policyOf(input.policy, snap) === "verify" ? verifiedSkill(snap, skillId) : void 0;
  const violation = (kind, mode, allowed, why) => ({
    type: "ContractViolation",
    workerId: obs2.workerId,
    kind,
    serverTaskId: obs2.serverTaskId,
    observed: mode,
    allowed: [...allowed],
    cardHash: snap?.cardHash ?? null,
    skillId,
    detail: `artifact ${JSON.stringify(obs2.name ?? obs2.artifactId)}${skillId === null ? "" : ` of skill ${skillId}`} is ${mode}; ${why}`
  });
  let out;
  for (const mode of modes) {
    if (judgeCard) {
      if (!mediaTypeAllowed(mode, advertised)) (out ??= []).push(violation("OUTPUT_MODE_NOT_ADVERTISED", mode, advertised, "the card in force at emission does not advertise it"));
      else if (verified !== void 0 && !mediaTypeAllowed(mode, verified.outputModes)) (out ??= []).push(violation("OUTPUT_MODE_NOT_VERIFIED", mode, verified.outputModes, `the probe of skill ${skillId ?? "(none)"} never saw it emitted`));
    }
    if (accepted.length > 0 && !mediaTypeAllowed(mode, accepted)) (out ??= []).push(violation("OUTPUT_MODE_NOT_NEGOTIATED", mode, accepted, `the dispatch accepted only ${accepted.join(", ")}`));
  }
  return out === void 0 ? noOutput : decided(unreported2(input.state, out));
}

// packages/core/src/rules/r3-divergent.ts
function divergences(state3, mine, cardHash2, out) {
  for (const task2 of state3.tasks) {
    if (task2.attempt === mine.attempt) continue;
    for (const other of task2.artifacts) {
      if (!other.complete || other.mediaTypes.length === 0 || !sameOutput(mine, other) || sameMediaTypes(mine.mediaTypes, other.mediaTypes)) continue;
      const [lo, hi] = other.attempt < mine.attempt ? [other.attempt, mine.attempt] : [mine.attempt, other.attempt];
      const output = outputLabel(mine, other);
      out.push({
        type: "ContractViolation",
        workerId: mine.workerId,
        kind: "DIVERGENT_ARTIFACTS",
        serverTaskId: mine.serverTaskId,
        observed: mine.mediaTypes.join(", "),
        allowed: [...other.mediaTypes],
        cardHash: cardHash2,
        output,
        attempts: [lo, hi],
        detail: `output ${output} is ${mine.mediaTypes.join(", ")} in attempt ${mine.attempt} (${mine.workerId}/${mine.serverTaskId}) and ${other.mediaTypes.join(", ")} in attempt ${other.attempt} (${task2.workerId}/${task2.serverTaskId})`,
        causeEventIds: [other.eventId]
      });
    }
  }
}
function r3Divergent2(input) {
  const obs2 = input.observation;
  const state3 = input.state;
  if (obs2.type === "ArtifactEmitted") {
    const task2 = taskOf(state3, obs2.workerId, obs2.serverTaskId);
    const existing = task2 === void 0 ? void 0 : artifactOf(task2, obs2.artifactId);
    const after = artifactAfter(existing, obs2, (attemptFor(state3, obs2.workerId, obs2.serverTaskId)?.artifactCount ?? 0) + 1, task2?.terminal ?? false);
    const grew = existing !== void 0 && after.mediaTypes !== existing.mediaTypes;
    if (!after.complete || after.mediaTypes.length === 0 || after.wasComplete && !grew) return noOutput;
    const out = [];
    const cardHash2 = input.capabilities.asOf(obs2.workerId, obs2.occurredAt)?.cardHash ?? null;
    const attempt = task2?.attempt ?? attemptNumberFor(state3, obs2.workerId, obs2.serverTaskId);
    divergences(state3, { name: after.name, ordinal: after.ordinal, mediaTypes: after.mediaTypes, workerId: obs2.workerId, serverTaskId: obs2.serverTaskId, attempt }, cardHash2, out);
    return decided(unreported2(state3, out));
  }
  if (obs2.type === "TaskStateObserved" && isTerminal(obs2.state)) {
    const task2 = taskOf(state3, obs2.workerId, obs2.serverTaskId);
    if (task2 === void 0 || task2.terminal || task2.artifacts.length === 0) return noOutput;
    const out = [];
    const cardHash2 = input.capabilities.asOf(obs2.workerId, obs2.occurredAt)?.cardHash ?? null;
    for (const a of task2.artifacts) {
      if (!a.complete && a.mediaTypes.length > 0) divergences(state3, { name: a.name, ordinal: a.ordinal, mediaTypes: a.mediaTypes, workerId: task2.workerId, serverTaskId: task2.serverTaskId, attempt: a.attempt }, cardHash2, out);
    }
    return decided(unreported2(state3, out));
  }
  return noOutput;
}

// packages/core/src/rules/r4-r5-not-found.ts
function answeringOpenDispatch(s, workerId, serverTaskId) {
  const open = openAttemptOn(s, workerId);
  return open === void 0 ? void 0 : { workerId, serverTaskId, attempt: open.attempt, contextId: null, last: null, terminal: false, lost: false, artifacts: [] };
}
function r4r5NotFound2(input) {
  const obs2 = input.observation;
  if (obs2.type !== "TaskNotFoundObserved") return noOutput;
  const s = input.state;
  if (canaryOf(s, obs2.workerId, obs2.serverTaskId) !== void 0) return noOutput;
  const snap = input.capabilities.asOf(obs2.workerId, obs2.occurredAt);
  const task2 = taskOf(s, obs2.workerId, obs2.serverTaskId) ?? answeringOpenDispatch(s, obs2.workerId, obs2.serverTaskId);
  if (task2 === void 0) {
    return decided(
      unreported2(s, [
        {
          type: "ContractViolation",
          workerId: obs2.workerId,
          kind: "UNSEEN_TASK_NOT_FOUND",
          serverTaskId: obs2.serverTaskId,
          observed: `TaskNotFound (${obs2.errorCode} on ${obs2.method})`,
          cardHash: snap?.cardHash ?? null,
          detail: `${obs2.observer} asked ${obs2.workerId} for task ${obs2.serverTaskId}, which this correlation never saw; it is not taken as the loss of another task`
        }
      ])
    );
  }
  if (task2.terminal || task2.lost) return noOutput;
  const last = task2.last;
  const lastState = last?.state ?? "TASK_STATE_UNSPECIFIED";
  const seen = last === null ? "no state was observed" : `its last observed state ${last.state} (seen by ${last.observer}) is not terminal`;
  const later = supersededBy(s, task2.attempt);
  const superseded = later === void 0 ? "" : `; attempt ${task2.attempt} was already superseded by attempt ${later.attempt} on ${later.workerId}, which carries the task on`;
  const causes = last === null ? [] : [last.eventId];
  const what = `TaskNotFound (${obs2.errorCode} on ${obs2.method}) for ${obs2.workerId}/${obs2.serverTaskId} of attempt ${task2.attempt} while ${seen}`;
  if (policyOf(input.policy, snap) === "trust") {
    return decided([
      { type: "TaskFailed", workerId: obs2.workerId, serverTaskId: obs2.serverTaskId, lastState, reason: `${what}; the worker is trusted (vendor ${snap?.vendor}, durable task store, no evidence against it), so the loss is a failure${superseded}`, causeEventIds: causes }
    ]);
  }
  return decided([
    {
      type: "TaskIndeterminate",
      workerId: obs2.workerId,
      serverTaskId: obs2.serverTaskId,
      lastState,
      lastObserver: last?.observer ?? "",
      attempt: task2.attempt,
      reason: `${what}; under verify a lost task is indeterminate, not failed${superseded}`,
      causeEventIds: causes
    }
  ]);
}

// packages/core/src/rules/eligibility.ts
var skillName = (skillId) => skillId === null ? "(no skill)" : skillId;
function verdict2(workerId, snap, need) {
  const no = (reason) => ({ workerId, eligible: false, reason });
  if (snap === void 0) return no("no card in force");
  if (!cardOffersSkill(snap, need.skillId)) return no(`the card in force does not offer skill ${skillName(need.skillId)}`);
  const v = verifiedSkill(snap, need.skillId);
  if (v === void 0) return no(`skill ${skillName(need.skillId)} of card ${snap.cardHash.slice(0, 12)} not verified by a probe yet`);
  const missing = need.states.filter((s) => !v.states.includes(s));
  if (missing.length > 0) return no(`verified states [${v.states.join(", ")}] of skill ${skillName(need.skillId)} lack ${missing.join(", ")}`);
  const accepted = need.acceptedOutputModes;
  const matching = accepted.length === 0 ? v.outputModes : v.outputModes.filter((m) => mediaTypeAllowed(m, accepted));
  if (accepted.length > 0 && matching.length === 0) return no(`verified output modes [${v.outputModes.join(", ")}] outside accepted [${accepted.join(", ")}]`);
  return { workerId, eligible: true, reason: `verifies ${need.states.join(", ")} for skill ${skillName(need.skillId)}; verified output modes [${matching.join(", ")}]` };
}
function verdicts2(view, need) {
  const all = view.workers().map((w) => w === need.lostWorkerId ? { workerId: w, eligible: false, reason: "lost the task: never a target under verify" } : verdict2(w, view.asOf(w, need.at), need));
  return { all, chosen: all.find((v) => v.eligible) };
}

// packages/core/src/rules/r6-reconcile.ts
var completed = "TASK_STATE_COMPLETED";
function restartStates(lastState) {
  return lastState === "TASK_STATE_UNSPECIFIED" || lastState === completed ? [completed] : [lastState, completed];
}
function resolve(state3, capabilities3, lost, at, onNoResume) {
  const task2 = taskOf(state3, lost.workerId, lost.serverTaskId);
  const attempt = task2 === void 0 ? void 0 : attemptNumbered(state3, task2.attempt);
  const base = { lostWorkerId: lost.workerId, skillId: attempt?.skillId ?? null, acceptedOutputModes: attempt?.acceptedOutputModes ?? [], at };
  const command = (target, resumeState, candidates) => ({
    type: "RedispatchCommanded",
    workerId: lost.workerId,
    targetWorkerId: target,
    fromServerTaskId: lost.serverTaskId,
    skillId: base.skillId,
    attempt: maxAttempt(state3) + 1,
    resumeState,
    acceptedOutputModes: [...base.acceptedOutputModes],
    candidates
  });
  const blocked2 = (reason, candidates) => ({ type: "ReconciliationBlocked", workerId: lost.workerId, lastState: lost.lastState, reason, candidates });
  const choose = (states3) => verdicts2(capabilities3, { ...base, states: states3 });
  if (isInterrupted(lost.lastState)) {
    const resume = choose([lost.lastState]);
    if (resume.chosen !== void 0) return { command: command(resume.chosen.workerId, lost.lastState, resume.all), blocked: blocked2("", resume.all) };
    if (onNoResume === "block") return { command: void 0, blocked: blocked2(`no worker verifies ${lost.lastState} for skill ${base.skillId ?? "(none)"} with output modes the dispatch accepted`, resume.all) };
    const fresh2 = choose([completed]);
    if (fresh2.chosen !== void 0) return { command: command(fresh2.chosen.workerId, null, fresh2.all), blocked: blocked2("", fresh2.all) };
    return { command: void 0, blocked: blocked2(`no worker verifies ${lost.lastState}, and none verifies completing the task from scratch`, fresh2.all) };
  }
  const states2 = restartStates(lost.lastState);
  const fresh = choose(states2);
  if (fresh.chosen !== void 0) return { command: command(fresh.chosen.workerId, null, fresh.all), blocked: blocked2("", fresh.all) };
  return { command: void 0, blocked: blocked2(`nothing to resume from ${lost.lastState}, and no worker verifies ${states2.join(" and ")} to restart the task`, fresh.all) };
}
function r6Reconcile2(onNoResume) {
  return (input) => {
    const lost = input.emitted.find((d) => d.type === "TaskIndeterminate");
    if (lost === void 0 || lost.type !== "TaskIndeterminate") return noOutput;
    const task2 = taskOf(input.state, lost.workerId ?? "", lost.serverTaskId);
    if (task2 === void 0 || supersededBy(input.state, task2.attempt) !== void 0) return noOutput;
    const r = resolve(input.state, input.capabilities, { workerId: lost.workerId ?? "", serverTaskId: lost.serverTaskId, lastState: lost.lastState }, input.observation.occurredAt, onNoResume);
    return decided([r.command ?? r.blocked]);
  };
}
function changesSince(capabilities3, from) {
  const changes = [];
  for (const w of capabilities3.workers()) for (const s of capabilities3.historyOf(w)) if (s.validFrom > from) changes.push(s);
  return changes.sort((a, b) => a.validFrom - b.validFrom || (a.workerId < b.workerId ? -1 : a.workerId > b.workerId ? 1 : 0) || (a.causeEventId < b.causeEventId ? -1 : a.causeEventId > b.causeEventId ? 1 : 0));
}
function recoverBlocked(onNoResume) {
  return ({ state: state3, capabilities: capabilities3 }) => {
    const loss = state3.loss;
    if (state3.status !== "blocked" || loss === null || state3.blockedAt === null) return void 0;
    const lost = { workerId: loss.workerId, serverTaskId: loss.serverTaskId, lastState: loss.lastState };
    for (const at of [state3.blockedAt, ...changesSince(capabilities3, state3.blockedAt).map((s) => s.validFrom)]) {
      const { command } = resolve(state3, capabilities3, lost, at, onNoResume);
      if (command === void 0 || command.type !== "RedispatchCommanded") continue;
      const snapshot = capabilities3.asOf(command.targetWorkerId, at);
      return { cause: { eventId: snapshot.causeEventId, occurredAt: snapshot.validFrom }, decision: { ...command, causeEventIds: [loss.eventId] } };
    }
    return void 0;
  };
}

// packages/core/src/rules/r7-probes.ts
function r7Probes2(input) {
  const obs2 = input.observation;
  if (obs2.type !== "AgentCardObserved") return noOutput;
  const previous = input.priorCapabilities.asOf(obs2.workerId, obs2.occurredAt);
  if (previous !== void 0 && previous.cardHash === obs2.cardHash) return noOutput;
  const firstContact = !input.priorCapabilities.knows(obs2.workerId);
  if (firstContact && policyOf(input.policy, input.capabilities.asOf(obs2.workerId, obs2.occurredAt)) !== "verify") return noOutput;
  return decided([{ type: "ProbeRequested", workerId: obs2.workerId, cardHash: obs2.cardHash, cardUrl: obs2.cardUrl, reason: firstContact ? "first-contact" : "card-changed" }]);
}

// packages/core/src/rules/r8-cards.ts
function parse2(text) {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
function cardChanged2(input, obs2) {
  const previous = input.priorCapabilities.asOf(obs2.workerId, obs2.occurredAt);
  if (previous === void 0 || previous.cardHash === obs2.cardHash) return noOutput;
  const before = input.priorCapabilities.card(previous.cardHash);
  const after = parse2(obs2.card);
  const changes = before === void 0 ? [{ path: "", before: null, after: canonicalize(after) }] : diffCards(parse2(before.card), after);
  return decided([{ type: "CardChanged", workerId: obs2.workerId, previousCardHash: previous.cardHash, cardHash: obs2.cardHash, changes }]);
}
function cardAge2(input, obs2) {
  if (obs2.cardFetchedAt === null) return noOutput;
  const hash = obs2.cardHash ?? input.capabilities.asOf(obs2.workerId, obs2.cardFetchedAt)?.cardHash;
  const maxAge = hash === void 0 ? void 0 : input.capabilities.card(hash)?.cacheMaxAgeSeconds;
  if (maxAge === void 0 || maxAge === null || obs2.cardFetchedAt + maxAge * 1e3 >= obs2.occurredAt) return noOutput;
  const ageMs = obs2.occurredAt - obs2.cardFetchedAt;
  return decided(
    unreported2(input.state, [
      {
        type: "ContractViolation",
        workerId: obs2.workerId,
        kind: "CARD_USED_PAST_MAX_AGE",
        observed: `${Math.floor(ageMs / 1e3)}s`,
        allowed: [`${maxAge}s`],
        cardHash: hash ?? null,
        skillId: obs2.skillId,
        detail: `${obs2.observer} dispatched on a card fetched ${ageMs} ms earlier; the worker allowed caching it for ${maxAge} s`
      }
    ])
  );
}
function r8Cards2(input) {
  const obs2 = input.observation;
  if (obs2.type === "AgentCardObserved") return cardChanged2(input, obs2);
  if (obs2.type === "TaskDispatched") return cardAge2(input, obs2);
  return noOutput;
}

// packages/core/src/rules/r9-durability.ts
function r9Durability2(input) {
  const obs2 = input.observation;
  if (obs2.type !== "TaskNotFoundObserved") return noOutput;
  const canary = canaryOf(input.state, obs2.workerId, obs2.serverTaskId);
  if (canary === void 0 || canary.lost) return noOutput;
  const parkedUnder = input.capabilities.asOf(obs2.workerId, canary.parkedAt);
  const current = input.capabilities.asOf(obs2.workerId, obs2.occurredAt);
  const decisions = [];
  if (parkedUnder !== void 0 && parkedUnder.cardHash === canary.cardHash && parkedUnder.taskStore === "durable") {
    decisions.push(
      ...unreported2(input.state, [
        {
          type: "ContractViolation",
          workerId: obs2.workerId,
          kind: "TASK_STORE_NOT_DURABLE",
          serverTaskId: obs2.serverTaskId,
          observed: `TaskNotFound (${obs2.errorCode}) for a canary parked in ${canary.state}`,
          allowed: ["durable"],
          cardHash: canary.cardHash,
          detail: `the card claims a durable task store, but canary ${canary.serverTaskId} parked by probe ${canary.probeEventId} was lost`,
          causeEventIds: [canary.probeEventId]
        }
      ])
    );
  }
  const revoked = current !== void 0 && current.cardHash === canary.cardHash ? snapshotRevokingInterrupted(current, obs2) : void 0;
  if (revoked === void 0) return decisions.length === 0 ? noOutput : { decisions, capabilityUpdates: [], cards: [] };
  decisions.push({
    type: "CapabilitiesVerified",
    workerId: obs2.workerId,
    cardHash: revoked.cardHash,
    states: revoked.verifiedStates,
    outputModes: revoked.verifiedSkills.map((k) => ({ skillId: k.skillId ?? "*", outputModes: k.outputModes })),
    durable: false,
    skills: revoked.verifiedSkills,
    causeEventIds: [canary.probeEventId]
  });
  return { decisions, capabilityUpdates: [revoked], cards: [] };
}

// packages/core/src/rules/reconciled.ts
function reconciled2(input) {
  const obs2 = input.observation;
  const loss = input.state.loss;
  if (obs2.type !== "TaskStateObserved" || loss === null || !isTerminal(obs2.state) || input.state.status === "reconciled") return noOutput;
  if (obs2.serverTaskId === loss.serverTaskId && obs2.workerId === loss.workerId) {
    return decided([
      { type: "TaskReconciled", workerId: obs2.workerId, serverTaskId: obs2.serverTaskId, state: obs2.state, attempt: loss.attempt, reason: `the lost task reappeared: ${obs2.observer} saw ${obs2.workerId}/${obs2.serverTaskId} in ${obs2.state} after TaskNotFound`, causeEventIds: [loss.eventId] }
    ]);
  }
  if (taskOf(input.state, obs2.workerId, obs2.serverTaskId)?.terminal === true) return noOutput;
  const attempt = attemptNumberFor(input.state, obs2.workerId, obs2.serverTaskId);
  if (attempt <= loss.attempt) return noOutput;
  return decided([
    { type: "TaskReconciled", workerId: obs2.workerId, serverTaskId: obs2.serverTaskId, state: obs2.state, attempt, reason: `attempt ${attempt} on ${obs2.workerId} ended in ${obs2.state} after attempt ${loss.attempt} was lost`, causeEventIds: [loss.eventId] }
  ]);
}

// packages/core/src/rules/skills.ts
function skillAdvertised(input) {
  const obs2 = input.observation;
  if (obs2.type !== "TaskDispatched" || obs2.skillId === null) return noOutput;
  const snap = input.capabilities.asOf(obs2.workerId, obs2.occurredAt);
  if (snap === void 0 || cardOffersSkill(snap, obs2.skillId)) return noOutput;
  const offered = snap.advertisedOutputModes.map((s) => s.skillId);
  return decided(
    unreported2(input.state, [
      {
        type: "ContractViolation",
        workerId: obs2.workerId,
        kind: "SKILL_NOT_ADVERTISED",
        observed: obs2.skillId,
        allowed: offered,
        cardHash: snap.cardHash,
        skillId: obs2.skillId,
        detail: `${obs2.observer} dispatched message ${obs2.messageId} to skill ${obs2.skillId}; the card in force offers ${offered.length === 0 ? "no skills" : offered.join(", ")}`
      }
    ])
  );
}

// packages/core/src/rules/rule-sets.ts
var common2 = (r6) => [
  { id: "capabilities", on: ["AgentCardObserved", "ProbeCompleted"], apply: capabilities2 },
  { id: "R8", on: ["AgentCardObserved", "TaskDispatched"], apply: r8Cards2 },
  { id: "R7", on: ["AgentCardObserved"], apply: r7Probes2 },
  { id: "skills", on: ["TaskDispatched"], apply: skillAdvertised },
  { id: "R1", on: ["TaskStateObserved"], apply: r1States2 },
  { id: "R2", on: ["ArtifactEmitted"], apply: r2Artifacts2 },
  { id: "R3", on: ["ArtifactEmitted", "TaskStateObserved"], apply: r3Divergent2 },
  { id: "R9", on: ["TaskNotFoundObserved"], apply: r9Durability2 },
  { id: "R4-R5", on: ["TaskNotFoundObserved"], apply: r4r5NotFound2 },
  { id: "R6", on: ["TaskNotFoundObserved"], apply: r6 },
  { id: "reconciled", on: ["TaskStateObserved"], apply: reconciled2 }
];
var defaultRuleSet = {
  name: "default",
  rulesVersion: "default/2",
  model: "correlation/2",
  rules: common2(r6Reconcile2("block")),
  recover: recoverBlocked("block")
};
var restartFromScratchRuleSet = {
  name: "restart-from-scratch",
  rulesVersion: "restart-from-scratch/2",
  model: "correlation/2",
  rules: common2(r6Reconcile2("restart")),
  recover: recoverBlocked("restart")
};
var ruleSets = {
  [defaultRuleSet.rulesVersion]: defaultRuleSet,
  [restartFromScratchRuleSet.rulesVersion]: restartFromScratchRuleSet,
  [defaultRuleSetV1.rulesVersion]: defaultRuleSetV1,
  [restartFromScratchRuleSetV1.rulesVersion]: restartFromScratchRuleSetV1
};
var latest = { [defaultRuleSet.name]: defaultRuleSet, [restartFromScratchRuleSet.name]: restartFromScratchRuleSet };
var ruleSetNames = [...Object.keys(latest), ...Object.keys(ruleSets)];

// ../../tmp/prof/alloc.ts
var lines = generateLog(2e5);
var obs = lines.map((l) => {
  const r = parseObservation(JSON.parse(l));
  if (!r.ok) throw new Error("bad");
  return r.observation;
});
globalThis.gc?.();
function run() {
  const decider = createDecider(defaultRuleSet);
  const table = new CapabilityTable();
  const ctx = { capabilities: table, policy: { trustedVendors: ["Vendor0"] } };
  const states2 = /* @__PURE__ */ new Map();
  for (const o of obs) {
    const r = decider.step(ctx, states2.get(o.correlationId) ?? decider.initialState(), o);
    states2.set(o.correlationId, r.state);
    if (r.capabilityUpdates.length) applyCapabilityUpdates(table, r);
  }
}
for (let i = 0; i < 6; i++) run();
