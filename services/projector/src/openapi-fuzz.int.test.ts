/**
 * schemathesis (schemathesisRun of @a2a-ledger/env/testing) against the projector as it runs: the
 * DESIGN §1 story posted through the real ingest API, decided by the real reconciler on the shared
 * Kafka and registry, projected into SQLite. No schema-valid request is rejected
 * (positive_data_acceptance), no answer is a 5xx (not_a_server_error), undeclared methods get 405 with
 * Allow (unsupported_method); with read tokens, the same requests without credentials are refused
 * (ignored_auth). fuzz/hooks.py sets aside refusals of cursors the server never issued (no schema can
 * name them). A live stream is read to its first event (max-stream-events), so it ends like a page.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { schemathesisRun } from "@a2a-ledger/env/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type InProcessProjector, startProjector, type StoryPipeline, storyPipeline } from "../test/pipeline.ts";

const hooks = fileURLToPath(new URL("../fuzz/hooks.py", import.meta.url));
const token = "fuzz-read-token-0123456789abcdef";
const dir = mkdtempSync(join(tmpdir(), "projector-fuzz-"));
const operations = [
  "GET /v1/tasks",
  "GET /v1/tasks/{correlationId}",
  "GET /v1/tasks/{correlationId}/events.ndjson",
  "GET /v1/tasks/{correlationId}/timeline",
  "GET /v1/workers",
  "GET /v1/workers/{workerId}",
  "GET /v1/violations",
  "GET /v1/dlq",
  "GET /v1/queue",
  "GET /v1/staleness",
  "GET /v1/stream",
  "GET /healthz",
  "GET /readyz",
  "GET /metrics",
];
// Bounded and reproducible: a fixed seed (schemathesisRun), few examples per operation, one event per stream.
const run = { hooks, config: "max-stream-events = 1\n" };
let pipeline: StoryPipeline;
let guarded: InProcessProjector;
let openUrl: string;
let guardedUrl: string;

beforeAll(async () => {
  pipeline = await storyPipeline("fuzz", dir);
  openUrl = await pipeline.projector.server.listen({ host: "127.0.0.1", port: 0 });
  // A second projector of the same topics, with read tokens.
  guarded = await startProjector(pipeline.fixture, {
    A2A_LEDGER_PROJECTOR_SQLITE_PATH: join(dir, "guarded.sqlite"),
    A2A_LEDGER_PROJECTOR_GROUP: `projector-guarded-${pipeline.fixture.suffix}`,
    A2A_LEDGER_PROJECTOR_TOKENS: token,
  });
  await guarded.projector.caughtUp(60_000);
  guardedUrl = await guarded.server.listen({ host: "127.0.0.1", port: 0 });
}, 240_000);
afterAll(async () => {
  await guarded?.stop();
  await pipeline?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("the projector's OpenAPI document against the running service (schemathesis)", () => {
  it("finds no schema-valid request rejected, no 5xx, and 405 with Allow for undeclared methods on every path", async () => {
    const result = await schemathesisRun(openUrl, "projector without tokens", {
      ...run,
      checks: "not_a_server_error,positive_data_acceptance,unsupported_method",
      phases: "examples,coverage,fuzzing",
      maxExamples: 25,
    });
    expect(result.code, result.output.slice(-8_000)).toBe(0);
    expect(result.operations).toEqual(expect.arrayContaining(operations));
  }, 200_000);

  it("with read tokens: authenticated requests as above, the same requests without credentials refused (ignored_auth)", async () => {
    const result = await schemathesisRun(guardedUrl, "projector with tokens", {
      ...run,
      checks: "not_a_server_error,positive_data_acceptance,ignored_auth,unsupported_method",
      phases: "examples,fuzzing",
      maxExamples: 10,
      extra: ["--header", `Authorization: Bearer ${token}`],
    });
    expect(result.code, result.output.slice(-8_000)).toBe(0);
    expect(result.operations).toEqual(expect.arrayContaining(operations));
    const doc = (await (await fetch(`${guardedUrl}/openapi.json`)).json()) as {
      paths: Record<string, { get: { security: unknown[] } }>;
    };
    expect(doc.paths["/v1/tasks"]?.get.security).toEqual([{ bearer: [] }]);
    expect(doc.paths["/healthz"]?.get.security).toEqual([]);
  }, 200_000);
});
