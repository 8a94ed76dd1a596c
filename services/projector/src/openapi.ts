/** The OpenAPI 3.1 document of the projector's API, served at /openapi.json. */
import { isoDateTimePattern } from "@a2a-ledger/core";
import { ViolationKindSymbols } from "@a2a-ledger/schemas";
import { cursorPattern, maxCursorChars } from "./cursor.ts";
import { errorCatalogue, errorCodes } from "./errors.ts";
import {
  epochMillisPattern,
  idPattern,
  acceptPattern,
  maxAcceptRanges,
  maxIdChars,
  maxReasonChars,
  reasonPattern,
  routeStateSpellings,
} from "./query-params.ts";
import { taskStatuses } from "./views/rows.ts";

type Json = Record<string, unknown>;

const text = (description: string): Json => ({ type: "string", description });
const query = (name: string, schema: Json, description: string): Json => ({
  name,
  in: "query",
  required: false,
  schema,
  description,
});
// Exactly what the server takes (query-params.ts, cursor.ts); an empty query value counts as absent.
const id: Json = {
  type: "string",
  minLength: 1,
  maxLength: maxIdChars,
  pattern: idPattern,
  description: `1 to ${maxIdChars} characters, no control characters.`,
};
const time: Json = {
  anyOf: [
    { type: "string", pattern: epochMillisPattern, description: "Epoch milliseconds." },
    {
      type: "string",
      pattern: isoDateTimePattern,
      description: "ISO-8601 date-time with an offset (Z or ±hh:mm); a local time is refused.",
    },
  ],
};
const path = (name: string, description: string): Json => ({
  name,
  in: "path",
  required: true,
  schema: id,
  description,
});
const cursor = query(
  "cursor",
  { type: "string", maxLength: maxCursorChars, pattern: cursorPattern },
  "Opaque cursor from the previous page's nextCursor; valid only with the same filters (another is PROJECTOR_BAD_CURSOR).",
);
const limit = (max: number, fallback: number) =>
  query("limit", { type: "integer", minimum: 1, maximum: max, default: fallback }, "Items per page.");
const errors = (...codes: string[]): Json =>
  Object.fromEntries(
    [...new Set(codes.map((c) => errorCatalogue[c as keyof typeof errorCatalogue].status))].map((status) => [
      String(status),
      {
        description: codes.filter((c) => errorCatalogue[c as keyof typeof errorCatalogue].status === status).join(", "),
        content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
      },
    ]),
  );
const retryAfter: Json = {
  "Retry-After": { description: "Seconds until the caller's window ends.", schema: { type: "integer", minimum: 1 } },
};
const ok = (description: string, contentType = "application/json"): Json => ({
  "200": {
    description,
    content: { [contentType]: { schema: { type: contentType === "application/json" ? "object" : "string" } } },
  },
});
const get = (summary: string, parameters: Json[], responses: Json): Json => ({
  get: {
    summary,
    parameters,
    responses: {
      ...responses,
      ...errors("PROJECTOR_UNKNOWN_PARAMETER", "PROJECTOR_UNAVAILABLE", "PROJECTOR_INTERNAL"),
    },
  },
});

export interface OpenApiOptions {
  /** Read tokens are configured (A2A_LEDGER_PROJECTOR_TOKENS): the API, the stream and (unless open) /metrics need one. */
  authRequired?: boolean;
  metricsOpen?: boolean;
}

/** The document with each operation's security: bearer where a read token is needed, none elsewhere. */
export function openApiDocument(options: OpenApiOptions = {}): Json {
  const document = baseDocument();
  const paths = document.paths as Record<string, { get: Json }>;
  for (const [route, item] of Object.entries(paths)) {
    const guarded = route.startsWith("/v1/") || (route === "/metrics" && !options.metricsOpen);
    // The routes a token guards are the ones rate limited, per token (per client address without tokens).
    if (guarded)
      item.get.responses = {
        ...(item.get.responses as Json),
        "429": { ...(errors("PROJECTOR_RATE_LIMITED")["429"] as Json), headers: retryAfter },
      };
    if (guarded && options.authRequired) {
      item.get.security = [{ bearer: [] }];
      item.get.responses = { ...(item.get.responses as Json), ...errors("PROJECTOR_UNAUTHORIZED") };
    } else {
      item.get.security = [];
    }
  }
  return document;
}

function baseDocument(): Json {
  return {
    openapi: "3.1.0",
    info: {
      title: "a2a-ledger projector",
      version: "1",
      description:
        "Read-only views of the ledger: task lineage, workers, violations, the indeterminate/blocked/expired queue, dead letters, staleness; a live stream of changes. Times are ISO-8601 UTC.",
    },
    paths: {
      "/v1/tasks": get(
        "Tasks, newest first",
        [
          query("status", { type: "string", enum: taskStatuses }, "Only tasks with this status."),
          query(
            "workerId",
            id,
            "Only tasks that involved this worker (dispatch, state, artifact, loss or re-dispatch target).",
          ),
          query(
            "since",
            time,
            "Only tasks whose first event is at or after this time (ISO-8601 with offset, or epoch ms).",
          ),
          query("until", time, "Only tasks whose first event is before this time."),
          query("q", id, "A correlation id, any attempt's server task id, a context id or a worker id (exact)."),
          cursor,
          limit(500, 50),
        ],
        { ...ok("{items, nextCursor}"), ...errors("PROJECTOR_BAD_FILTER", "PROJECTOR_BAD_CURSOR") },
      ),
      "/v1/tasks/{correlationId}": get(
        "The lineage of one correlation: attempts (worker, server task ids, dispatch, state timeline per observer), indeterminate periods, artifacts, violations, decisions and commands with their cause events, and one page of events",
        [path("correlationId", "The correlation id."), cursor, limit(1_000, 200)],
        {
          ...ok("The lineage; events.nextCursor pages the events"),
          ...errors("PROJECTOR_BAD_ID", "PROJECTOR_UNKNOWN_TASK", "PROJECTOR_BAD_CURSOR", "PROJECTOR_BAD_FILTER"),
        },
      ),
      "/v1/tasks/{correlationId}/events.ndjson": get(
        "The correlation's observations in the ingest JSON shape, in log order; replays with `a2a-ledger replay --input`",
        [path("correlationId", "The correlation id.")],
        { ...ok("NDJSON", "application/x-ndjson"), ...errors("PROJECTOR_BAD_ID", "PROJECTOR_UNKNOWN_TASK") },
      ),
      "/v1/tasks/{correlationId}/timeline": get(
        "The lineage in the shape of A2A's task timeline (a2aproject/A2A pull request 2129 at b5fe6101, for v1.1): one A2A Task (ProtoJSON) per server task of each attempt, with `timeline` entries ({message} for the dispatch, {status} for each state change) ordered by `generation`, artifacts with `startGeneration`/`endGeneration`, and the task's `generation`. Generations are the ledger's, counted per server task in recorded order; int64 values are strings.",
        [
          path("correlationId", "The correlation id."),
          query("format", { type: "string", enum: ["a2a"], default: "a2a" }, "The shape: a2a (the only one)."),
          query(
            "timelineLength",
            { type: "integer", minimum: 1, maximum: 100_000 },
            "At most this many most recent timeline entries per task (A2A's timelineLength).",
          ),
        ],
        {
          ...ok("{correlationId, format, specification, truncated, tasks: [Task]}"),
          ...errors("PROJECTOR_BAD_ID", "PROJECTOR_UNKNOWN_TASK", "PROJECTOR_BAD_FILTER"),
        },
      ),
      "/v1/workers": get("Workers with trust or verify and why", [cursor, limit(500, 100)], {
        ...ok("{items, nextCursor}"),
        ...errors("PROJECTOR_BAD_FILTER", "PROJECTOR_BAD_CURSOR"),
      }),
      "/v1/workers/{workerId}": get(
        "One worker: advertised vs verified per skill, card history with field-level diffs, probes, parked canaries, trust or verify and why",
        [path("workerId", "The worker id.")],
        { ...ok("The worker"), ...errors("PROJECTOR_BAD_ID", "PROJECTOR_UNKNOWN_WORKER") },
      ),
      "/v1/workers/{workerId}/verified-card": get(
        "The worker's card in force with what the ledger verified in place of what it advertises: the task-lifecycle extension's params (states every kept skill verified, taskStore from the verified durability: durable, ephemeral or unknown, and each skill's verified states) and each skill's outputModes replaced by the verified ones; a skill no probe of this card verified is left out, and defaultOutputModes keeps only modes verified for some skill, so the card never holds a state or mode V lacks. With `diff` (RFC 6901 pointers against the advertised card, values in canonical JSON; each removal or change with `evidence`: this card's probes — at most 200, newest first — and, under the extension, its parked canaries lost after a restart (`lostCanaries`) and the real tasks lost in an interrupted state whose loss revoked the card's interrupted states (`lostTasks`, default/3)), `validFrom` of the snapshot, `ETag` (of the snapshot; If-None-Match answers 304) and `Cache-Control` (max-age = the card's cache lifetime when it gave one, else no-cache).",
        [path("workerId", "The worker id.")],
        {
          ...ok(
            "{workerId, cardHash, validFrom, signature, card, diff: [{path, before, after, evidence?}], etag, cacheControl}",
          ),
          "304": { description: "If-None-Match matched the ETag" },
          ...errors("PROJECTOR_BAD_ID", "PROJECTOR_UNKNOWN_WORKER", "PROJECTOR_WORKER_NOT_VERIFIED"),
        },
      ),
      "/v1/route": get(
        "The workers that could take a task, ranked as R6 ranks (the core's `route`, the very verdicts R6 decides with): for a skill, the task's last state (an interrupted state to resume; submitted or working to restart; none for a new task) and the output modes accepted. Only what the ledger verified counts (per card and skill); the newest capability snapshot of each worker is read, as of now. Trust is judged by the trust policy version in force then (`policyVersion`; null when the projector was given a fixed vendor list). Each eligible worker has its rank (1 is the one R6 would command), reason, verified states, accepted verified output modes, trust or verify, cardHash and validFrom; every other worker with a snapshot is in `ineligible` with its reason. None eligible is 200 with an empty `workers`. Both lists hold at most `limit` entries; eligibleCount and ineligibleCount count them all.",
        [
          query("skill", id, "The skill id; absent: a dispatch without a skill (the card's defaults)."),
          query(
            "state",
            { type: "string", enum: routeStateSpellings },
            "The task's last state in any ingest spelling of a state that is not terminal (completed counts as nothing to resume); absent: a new task.",
          ),
          query(
            "accept",
            { type: "string", pattern: acceptPattern },
            `The media ranges the orchestrator accepts: 1 to ${maxAcceptRanges}, separated by commas without spaces, each type/subtype with parts of 1 to 64 characters (* allowed, no parameters); absent: any.`,
          ),
          limit(1_000, 100),
        ],
        {
          ...ok(
            "{skillId, state, resume, needs, accept, at, eligibleCount, ineligibleCount, workers: [{workerId, rank, reason, verifiedStates, outputModes, policy, cardHash, validFrom}], ineligible: [{workerId, eligible, reason}]}",
          ),
          ...errors("PROJECTOR_BAD_FILTER"),
        },
      ),
      "/v1/violations": get(
        "Contract violations, newest first",
        [
          query("kind", { type: "string", enum: ViolationKindSymbols }, "Only this kind."),
          query("workerId", id, "Only this worker."),
          cursor,
          limit(500, 100),
        ],
        { ...ok("{items, nextCursor}"), ...errors("PROJECTOR_BAD_FILTER", "PROJECTOR_BAD_CURSOR") },
      ),
      "/v1/dlq": get(
        "Dead letters, newest first: the reconciler's DLQ with its reason codes, and records the projector could not project",
        [
          query(
            "reason",
            { type: "string", minLength: 1, maxLength: maxReasonChars, pattern: reasonPattern },
            "Only this reason code (capitals, digits and '_').",
          ),
          cursor,
          limit(500, 100),
        ],
        { ...ok("{items, nextCursor}"), ...errors("PROJECTOR_BAD_FILTER", "PROJECTOR_BAD_CURSOR") },
      ),
      "/v1/queue": get(
        "Correlations that need an operator: indeterminate, blocked and expired (no outcome, no longer watched by the reconciler), the longest waiting first, with waitedMs (and an expired one's expiry) and the operator resolutions recorded for each (`a2a-ledger resolve`: {correlationId, eventId, at, by, action, workerId, reason}); `resolved`: the latest 20 resolutions anywhere, newest first, each with its correlation's status now",
        [cursor, limit(500, 100)],
        {
          ...ok("{counts: {indeterminate, blocked, expired}, items, nextCursor, resolved}"),
          ...errors("PROJECTOR_BAD_FILTER", "PROJECTOR_BAD_CURSOR"),
        },
      ),
      "/v1/staleness": get(
        "How far the views are behind each topic partition",
        [],
        ok("{topics: [{topic, lagRecords, behindMs, partitions}]}"),
      ),
      "/v1/stream": get(
        "Server-sent events of view changes: `task` {correlationId, status, workers}, `worker` {workerId}, `dlq` {added}, `refresh` {reason} (reload what is shown)",
        [
          query("correlationId", id, "Only this correlation."),
          query("workerId", id, "Only tasks of this worker and the worker itself."),
        ],
        {
          ...ok("text/event-stream", "text/event-stream"),
          ...errors("PROJECTOR_BAD_FILTER", "PROJECTOR_TOO_MANY_STREAMS"),
        },
      ),
      "/healthz": { get: { summary: "The process is up", responses: ok("{status: ok}") } },
      "/readyz": {
        get: {
          summary: "The database and Kafka answer",
          responses: { ...ok("{status, database, kafka}"), "503": { description: "not ready" } },
        },
      },
      "/metrics": {
        get: {
          summary: "Prometheus metrics, including view lag per topic partition",
          responses: ok("text", "text/plain"),
        },
      },
    },
    components: {
      securitySchemes: {
        bearer: {
          type: "http",
          scheme: "bearer",
          description:
            "A read token of A2A_LEDGER_PROJECTOR_TOKENS. The page asks for it once and keeps it in sessionStorage; it is never put in a URL.",
        },
      },
      schemas: {
        Error: {
          type: "object",
          required: ["error", "code"],
          properties: {
            error: text("What went wrong, for people."),
            code: {
              type: "string",
              enum: errorCodes,
              description: errorCodes
                .map((c) => `${c} (${errorCatalogue[c].status}): ${errorCatalogue[c].message}`)
                .join("\n"),
            },
            parameter: text("The parameter at fault."),
          },
        },
      },
    },
  };
}
