/**
 * schemathesis (schemathesisRun of @a2a-ledger/env/testing) against the running service on the real
 * Kafka and registry, with a throwaway topic: no schema-valid request is rejected
 * (positive_data_acceptance), no answer is a 5xx (not_a_server_error), and undeclared methods get 405
 * with Allow (unsupported_method). fuzz/hooks.py states the two things JSON Schema cannot: a given
 * cardHash must be the card's, and the card's JSON text must satisfy its contentSchema.
 *
 * The server runs with A2A_LEDGER_INGEST_MAX_DEPTH=4: the document spells the card's depth limit as one schema
 * per level, and schemathesis' coverage phase grows with that chain; 4 levels keep the run within a
 * minute or two here while exercising the same schema shape as the default 32.
 */
import type { AddressInfo } from "node:net";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { schemathesisRun } from "@a2a-ledger/env/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { endOffsetSum, servedTopic } from "../test/stack.ts";

const hooks = join(resolve(fileURLToPath(new URL(".", import.meta.url)), "../fuzz"), "hooks.py");
const maxDepth = 4;
const served = servedTopic("fuzz", { maxEvents: 20, maxDepth });
const token = "fuzz-token-0123456789abcdef";
// Tokens required: the authenticated run's token may claim any observer (schemathesis generates them).
const guarded = servedTopic("fuzz-auth", {
  maxEvents: 20,
  maxDepth,
  tokens: [
    { token, observers: ["*"] },
    { token: "proxy-token-0123456789abcd", observers: ["proxy:*"] },
  ],
});
let baseUrl: string;
let guardedUrl: string;

beforeAll(async () => {
  await served.app.server.listen({ host: "127.0.0.1", port: 0 });
  baseUrl = `http://127.0.0.1:${(served.app.server.server.address() as AddressInfo).port}`;
  await guarded.app.server.listen({ host: "127.0.0.1", port: 0 });
  guardedUrl = `http://127.0.0.1:${(guarded.app.server.server.address() as AddressInfo).port}`;
});

const fuzz = (options: { checks: string; phases: string; maxExamples: number; extra?: string[] }) => ({
  ...options,
  hooks,
  env: { INGEST_FUZZ_MAX_DEPTH: String(maxDepth) },
});

describe("the OpenAPI document against the running service (schemathesis)", () => {
  it("finds no schema-valid request rejected, no 5xx, and 405 with Allow for undeclared methods", async () => {
    const before = await endOffsetSum(served.admin, served.topic);
    const { code, output, junit } = await schemathesisRun(
      baseUrl,
      "ingest without tokens",
      fuzz({
        checks: "not_a_server_error,positive_data_acceptance,unsupported_method",
        phases: "examples,coverage,fuzzing",
        maxExamples: 100,
      }),
    );
    expect(code, output.slice(-8_000)).toBe(0);
    // The run really exercised the ingest operation and records landed on the topic.
    expect(junit).toContain('name="POST /v1/observations"');
    expect(await endOffsetSum(served.admin, served.topic)).toBeGreaterThan(before + 50);
  }, 180_000);

  it("with tokens configured: authenticated requests as above, and the same requests without credentials refused (ignored_auth)", async () => {
    const before = await endOffsetSum(guarded.admin, guarded.topic);
    const { code, output, junit } = await schemathesisRun(
      guardedUrl,
      "ingest with tokens",
      fuzz({
        checks: "not_a_server_error,positive_data_acceptance,ignored_auth,unsupported_method",
        phases: "examples,fuzzing",
        maxExamples: 30,
        extra: ["--header", `Authorization: Bearer ${token}`],
      }),
    );
    expect(code, output.slice(-8_000)).toBe(0);
    expect(junit).toContain('name="POST /v1/observations"');
    expect(await endOffsetSum(guarded.admin, guarded.topic)).toBeGreaterThan(before + 10);
    // The document says which token scheme, and that a foreign observer is 403.
    const doc = (await (await fetch(`${guardedUrl}/openapi.json`)).json()) as {
      paths: Record<string, { post?: { security: unknown[]; responses: Record<string, unknown> } }>;
    };
    expect(doc.paths["/v1/observations"]?.post?.security).toEqual([{ bearer: [] }]);
    expect(Object.keys(doc.paths["/v1/observations"]?.post?.responses ?? {})).toEqual(
      expect.arrayContaining(["401", "403"]),
    );
  }, 180_000);
});
