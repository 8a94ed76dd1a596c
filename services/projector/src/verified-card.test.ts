import { interpretCard, normalizeTaskState, replayLog, defaultRuleSet } from "@a2a-ledger/core";
import { agentCard, events } from "@a2a-ledger/core/testing/builders";
import type { TaskState } from "@a2a-ledger/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LiveStream } from "./live-stream.ts";
import { createMetrics } from "./metrics.ts";
import { buildServer } from "./server.ts";
import { activeGeneration } from "./store/generations.ts";
import type { Store } from "./store/store.ts";
import { writeBatch } from "./views/writer.ts";
import { newStore, useStores } from "../test/stores.ts";
import { inputsFor, story } from "../test/story.ts";

useStores();
let store: Store;
let server: ReturnType<typeof buildServer>;
let stream: LiveStream;
// The story, and a worker whose card was fetched but never probed.
const log = [
  ...story(),
  events("new-").card("w-new", agentCard({ org: "New", states: ["submitted", "working", "completed"] }), {
    at: Date.UTC(2025, 5, 2, 10),
    maxAge: 300,
  }),
];

beforeAll(async () => {
  store = await newStore("sqlite");
  const gen = (await store.read(activeGeneration)) as number;
  for (const { topic, partition, inputs } of inputsFor(log))
    await writeBatch(store, gen, topic, partition, inputs, { lowWatermark: 0 });
  stream = new LiveStream(store);
  const kafka = { endOffsets: async () => [], kafkaReachable: async () => true, consuming: () => true };
  server = buildServer({
    config: { policy: { trustedVendors: [] }, cursorSecret: "a-test-secret-of-16+", maxStreams: 1 },
    store,
    stream,
    metrics: createMetrics(),
    kafka,
    logger: false,
  });
});
afterAll(async () => {
  await server.close();
  stream.stop();
});

interface CardView {
  workerId: string;
  cardHash: string;
  validFrom: string;
  card: Record<string, unknown>;
  diff: {
    path: string;
    before: string | null;
    after: string | null;
    evidence?: { probes: { eventId: string }[]; lostCanaries: unknown[] };
  }[];
  code?: string;
}
const get = async (url: string, headers: Record<string, string> = {}) => {
  const response = await server.inject({ method: "GET", url, headers });
  return {
    status: response.statusCode,
    headers: response.headers,
    body: (response.body === "" ? {} : response.json()) as CardView,
  };
};

describe("GET /v1/workers/:id/verified-card", () => {
  it("holds no state or output mode the worker's V lacks, for every worker of the story", async () => {
    const { capabilities } = replayLog(log, defaultRuleSet);
    let removals = 0;
    for (const workerId of ["w-acme", "w-beta", "w-gamma"]) {
      const { status, body } = await get(`/v1/workers/${workerId}/verified-card`);
      expect(status, workerId).toBe(200);
      const snap = capabilities.asOf(workerId, Number.MAX_SAFE_INTEGER);
      if (snap === undefined) throw new Error(`no snapshot of ${workerId}`);
      expect(body.cardHash).toBe(snap.cardHash);
      expect(body.validFrom).toBe(new Date(snap.validFrom).toISOString());
      const seen = interpretCard(body.card);
      const verifiedStates = new Set(snap.verifiedSkills.flatMap((s) => s.states));
      for (const s of seen.states) expect(verifiedStates.has(s), `${workerId} card lists ${s}`).toBe(true);
      for (const skill of seen.skills) {
        const v = snap.verifiedSkills.find((x) => x.skillId === skill.skillId);
        expect(v, `${workerId} keeps unverified skill ${skill.skillId}`).toBeDefined();
        for (const m of skill.outputModes)
          expect(v?.outputModes, `${workerId} ${skill.skillId} lists ${m}`).toContain(m);
        const params = (
          (
            body.card["capabilities"] as { extensions: { params: { skills: { id: string; states: string[] }[] } }[] }
          ).extensions.find((e) => "skills" in (e.params ?? {}))?.params.skills ?? []
        ).find((x) => x.id === skill.skillId);
        expect(params?.states.map((s) => normalizeTaskState(s) as TaskState)).toEqual(v?.states);
      }
      for (const change of body.diff) {
        expect(change.path.startsWith("/"), change.path).toBe(true);
        if (change.before !== null) {
          removals++;
          expect(change.evidence?.probes.length, `${workerId} ${change.path}`).toBeGreaterThan(0);
        }
      }
    }
    // The story's cards advertise more than their probes verified (w-beta's input-required, W1's output modes).
    expect(removals).toBeGreaterThan(0);
  });

  it("says in the diff what was taken out, as a JSON pointer into the advertised card", async () => {
    const { body } = await get("/v1/workers/w-beta/verified-card");
    const states = body.diff.filter((c) => /^\/capabilities\/extensions\/\d+\/params\/states/.test(c.path));
    expect(states.length).toBeGreaterThan(0);
  });

  it("carries ETag and Cache-Control from the snapshot, and answers If-None-Match with 304", async () => {
    const first = await get("/v1/workers/w-acme/verified-card");
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(String(first.headers["cache-control"])).toMatch(/^(max-age=\d+|no-cache)$/);
    expect((await get("/v1/workers/w-acme/verified-card")).headers.etag).toBe(etag);
    expect((await get("/v1/workers/w-beta/verified-card")).headers.etag).not.toBe(etag);
    expect((await get("/v1/workers/w-acme/verified-card", { "if-none-match": etag })).status).toBe(304);
  });

  it("is 404 for an unknown worker and 409 PROJECTOR_WORKER_NOT_VERIFIED for one never probed", async () => {
    expect((await get("/v1/workers/nobody/verified-card")).body.code).toBe("PROJECTOR_UNKNOWN_WORKER");
    expect((await get("/v1/workers/nobody/verified-card")).status).toBe(404);
    const unprobed = await get("/v1/workers/w-new/verified-card");
    expect(unprobed.status).toBe(409);
    expect(unprobed.body.code).toBe("PROJECTOR_WORKER_NOT_VERIFIED");
  });

  it("answers other methods with 405 and Allow", async () => {
    const response = await server.inject({ method: "DELETE", url: "/v1/workers/w-acme/verified-card" });
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe("GET, HEAD");
  });
});
