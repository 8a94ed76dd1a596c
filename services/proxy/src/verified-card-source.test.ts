import { describe, expect, it } from "vitest";
import { readProjectorAnswer } from "./verified-card-source.ts";

const hash = "a".repeat(64);
const view = {
  workerId: "W1",
  cardHash: hash,
  validFrom: "2026-12-02T00:00:00.000Z",
  card: { name: "W1" },
  diff: [],
  etag: '"t"',
  cacheControl: "max-age=60",
};

describe("readProjectorAnswer", () => {
  it("takes a 200 verified card of this worker, with a Cache-Control it can pass on", () => {
    expect(readProjectorAnswer(200, JSON.stringify(view), "max-age=60", "W1")).toEqual({
      ok: true,
      view: {
        workerId: "W1",
        cardHash: hash,
        validFrom: view.validFrom,
        card: { name: "W1" },
        cacheControl: "max-age=60",
      },
    });
    expect(readProjectorAnswer(200, JSON.stringify(view), "public, max-age=60, immutable", "W1")).toMatchObject({
      ok: true,
      view: { cacheControl: null },
    });
  });

  it("names 404 and 409 only when the projector's own error codes say so", () => {
    expect(
      readProjectorAnswer(404, JSON.stringify({ code: "PROJECTOR_UNKNOWN_WORKER" }), undefined, "W1"),
    ).toMatchObject({ ok: false, reason: "unknown-worker" });
    expect(
      readProjectorAnswer(409, JSON.stringify({ code: "PROJECTOR_WORKER_NOT_VERIFIED" }), undefined, "W1"),
    ).toMatchObject({ ok: false, reason: "not-verified" });
    // A 404 of something else (a wrong A2A_LEDGER_PROXY_PROJECTOR_URL) is not an unknown worker.
    expect(readProjectorAnswer(404, "<html>Not Found</html>", undefined, "W1")).toMatchObject({
      ok: false,
      reason: "projector-bad-answer",
    });
    expect(readProjectorAnswer(409, "{}", undefined, "W1")).toMatchObject({
      ok: false,
      reason: "projector-bad-answer",
    });
  });

  it("reads 401/403 as a refused token and 5xx as an unreachable projector", () => {
    expect(readProjectorAnswer(401, "{}", undefined, "W1")).toMatchObject({ ok: false, reason: "projector-refused" });
    expect(readProjectorAnswer(403, "{}", undefined, "W1")).toMatchObject({ ok: false, reason: "projector-refused" });
    expect(readProjectorAnswer(503, "{}", undefined, "W1")).toMatchObject({
      ok: false,
      reason: "projector-unreachable",
    });
  });

  it("refuses answers that are not a verified card of this worker", () => {
    const bad: [number, string][] = [
      [302, ""],
      [200, "not json"],
      [200, "[1,2]"],
      [200, JSON.stringify({ ...view, workerId: "W2" })],
      [200, JSON.stringify({ ...view, cardHash: "short" })],
      [200, JSON.stringify({ ...view, validFrom: "yesterday" })],
      [200, JSON.stringify({ ...view, card: "a card" })],
      [200, JSON.stringify({ ...view, card: [view.card] })],
    ];
    for (const [status, body] of bad)
      expect(readProjectorAnswer(status, body, undefined, "W1"), `${status} ${body.slice(0, 60)}`).toMatchObject({
        ok: false,
        reason: "projector-bad-answer",
      });
  });
});
