/**
 * `POST /v1/observations`: a batch of observations, all or nothing. Read as bytes, parsed and validated
 * (every problem of every event, with its index and path), held to the token's scope (one event outside
 * it refuses the whole batch), stamped with who said it (the principal) and, for a card, what ingest
 * found (its signature and its poster's standing), encoded and produced; 202 once Kafka acknowledged it.
 */
import type { CardKeys } from "@a2a-ledger/card-signatures";
import { checkCardSignature } from "@a2a-ledger/card-signatures";
import type { FastifyPluginAsync } from "fastify";
import { anyObserver, type ObserverGrant, type ScopeRefusal, type TokenCheck } from "../auth.ts";
import { bodyFormatOf, eventsOf } from "../body.ts";
import { encodeBatch, type Encoder } from "../encode-batch.ts";
import { IngestError } from "../errors.ts";
import type { ObservationSink } from "../kafka-sink.ts";
import type { IngestMetrics } from "../metrics.ts";
import type { ServerConfig } from "../server.ts";
import { validateBatch } from "../validate-batch.ts";

export interface ObservationRouteContext {
  config: ServerConfig;
  sink: ObservationSink;
  encoder: Encoder;
  metrics: IngestMetrics;
  tokens: TokenCheck;
  keys: CardKeys;
}

/** The codes of a scope refusal, the most basic first: a batch with several kinds of refusal is answered with the first present. */
const scopeCodes: readonly ScopeRefusal["code"][] = [
  "INGEST_OBSERVER_FORBIDDEN",
  "INGEST_KIND_FORBIDDEN",
  "INGEST_WORKER_FORBIDDEN",
];
const scopeWhat: Readonly<Record<ScopeRefusal["code"], string>> = {
  INGEST_OBSERVER_FORBIDDEN: "claim an observer this token may not write as",
  INGEST_KIND_FORBIDDEN: "are of a kind this token may not post",
  INGEST_WORKER_FORBIDDEN: "speak about a worker this token may not speak about",
};

/** 403 for a batch with events outside the token's scope; details name every such event (first 100). */
function scopeError(outside: readonly ({ index: number } & ScopeRefusal)[]): IngestError {
  const code = scopeCodes.find((c) => outside.some((o) => o.code === c)) ?? "INGEST_OBSERVER_FORBIDDEN";
  const counts = scopeCodes.flatMap((c) => {
    const n = outside.filter((o) => o.code === c).length;
    return n === 0 ? [] : [`${n} event(s) ${scopeWhat[c]}`];
  });
  return new IngestError(
    code,
    `${counts.join("; ")}; the whole batch was refused and nothing was produced`,
    outside.slice(0, 100).map(({ index, path, message }) => ({ index, path, message })),
  );
}

export const observationRoutes: FastifyPluginAsync<ObservationRouteContext> = async (app, ctx) => {
  const { config, sink, encoder, metrics, tokens, keys } = ctx;
  const grants = new WeakMap<object, ObserverGrant>();

  app.post(
    "/v1/observations",
    {
      onRequest: async (request) => {
        // The guard (the server's onRequest) has refused a request without a valid token; this finds the token's scope.
        const grant = tokens.grant(request.headers.authorization);
        if (grant === undefined) throw new IngestError("INGEST_UNAUTHORIZED", "A valid bearer token is required");
        grants.set(request, grant);
        bodyFormatOf(request.headers["content-type"]);
      },
    },
    async (request, reply) => {
      const format = bodyFormatOf(request.headers["content-type"]);
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const values = eventsOf(body, format, config.maxEvents);
      metrics.eventsReceived.inc(values.length);
      const observations = validateBatch(values, config.maxDepth);
      // A token writes only inside its scope (observers, kinds, workers); one event outside it refuses the whole batch.
      const grant = grants.get(request) ?? anyObserver;
      const outside = observations.flatMap((o, index) => {
        const refusal = grant.refusal(o);
        return refusal === undefined ? [] : [{ index, ...refusal }];
      });
      if (outside.length > 0) throw scopeError(outside);
      // Who said it: the authenticated principal, over whatever the client put there (null without tokens).
      for (const o of observations) o.principal = grant.principal;
      // A card carries what ingest found, over whatever the client sent: its signature against the keys
      // trusted for its worker (null: none are), and whom its poster speaks for (card-admission in core).
      for (const o of observations) {
        if (o.type !== "AgentCardObserved") continue;
        const check = keys.empty ? null : await checkCardSignature(o.card, o.workerId, keys, o.occurredAt);
        o.signature = check?.status ?? null;
        o.signatureKeyId = check?.keyId ?? null;
        o.standing = grant.standing(o);
        if (check !== null) metrics.cardSignatures.inc({ status: check.status });
      }
      const records = await encodeBatch(encoder, observations, config.maxRecordBytes, config.retryAfterSeconds);
      const stopTimer = metrics.produceSeconds.startTimer();
      try {
        await sink.publish(records);
        stopTimer({ outcome: "acknowledged" });
      } catch (e) {
        stopTimer({ outcome: "failed" });
        throw e;
      }
      metrics.eventsAccepted.inc(records.length);
      metrics.batchSize.observe(records.length);
      return reply.code(202).send({ accepted: records.length });
    },
  );
};
