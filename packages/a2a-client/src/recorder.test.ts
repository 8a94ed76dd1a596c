import { IngestRejectedError, IngestUnavailableError, type ObservationInput } from "@a2a-ledger/ingest-client";
import { describe, expect, it } from "vitest";
import { ObservationRecorder, type RecordingProblem } from "./recorder.ts";

const obs = (n: number): ObservationInput => ({
  type: "TaskNotFoundObserved",
  eventId: `e-${n}`,
  correlationId: "c",
  occurredAt: 1,
  observer: "o",
  workerId: "w",
  serverTaskId: `t-${n}`,
  method: "GetTask",
  errorCode: "-32001",
});

/** A sender that answers each call with the next scripted outcome (then accepts). */
function scripted(outcomes: (Error | "ok")[]) {
  const batches: string[][] = [];
  return {
    batches,
    async send(events: readonly ObservationInput[]) {
      batches.push(events.map((e) => e.eventId));
      const next = outcomes.shift() ?? "ok";
      if (next !== "ok") throw next;
      return { accepted: events.length };
    },
  };
}

describe("the recorder between the client and ingest", () => {
  it("given ingest fails twice, when observations are recorded, then the same batch is sent again until it is taken", async () => {
    const sender = scripted([
      new IngestUnavailableError("down", 1, 0, 503, "INGEST_KAFKA_UNAVAILABLE"),
      new Error("socket hang up"),
    ]);
    const problems: RecordingProblem["kind"][] = [];
    const recorder = new ObservationRecorder({
      sender,
      retryInitialMs: 1,
      retryMaxMs: 2,
      onProblem: (p) => problems.push(p.kind),
    });
    recorder.record([obs(1), obs(2)]);
    const stats = await recorder.flush(5_000);
    expect(stats).toEqual({ pending: 0, recorded: 2, rejected: 0, dropped: 0, ingestReachable: true });
    expect(sender.batches).toEqual([
      ["e-1", "e-2"],
      ["e-1", "e-2"],
      ["e-1", "e-2"],
    ]);
    expect(problems).toEqual(["unavailable", "unavailable"]);
  });

  it("given ingest rejects one event of a batch, then only that one is dropped and counted, the rest is sent again", async () => {
    const rejected = new IngestRejectedError(
      400,
      "INGEST_VALIDATION_FAILED",
      "bad",
      [{ index: 1, path: "/serverTaskId", message: "bad" }],
      0,
    );
    const sender = scripted([rejected]);
    const recorder = new ObservationRecorder({ sender });
    recorder.record([obs(1), obs(2), obs(3)]);
    const stats = await recorder.flush(5_000);
    expect(stats).toMatchObject({ pending: 0, recorded: 2, rejected: 1 });
    expect(sender.batches).toEqual([
      ["e-1", "e-2", "e-3"],
      ["e-1", "e-3"],
    ]);
  });

  it("given the queue is full, when more is recorded, then the new observations are dropped and counted, never thrown", async () => {
    const sender = scripted([new Error("down")]);
    const recorder = new ObservationRecorder({ sender, capacity: 2, retryInitialMs: 50 });
    expect(() => recorder.record([obs(1), obs(2), obs(3)])).not.toThrow();
    expect(recorder.stats()).toMatchObject({ pending: 2, dropped: 1 });
    expect(await recorder.close(5_000)).toMatchObject({ pending: 0, recorded: 2, dropped: 1 });
  });

  it("given ingest stays down, when flushed with a deadline, then it answers at the deadline with what is pending", async () => {
    const down = { send: async () => Promise.reject(new Error("down")) };
    const recorder = new ObservationRecorder({ sender: down, retryInitialMs: 20, retryMaxMs: 20 });
    recorder.record([obs(1)]);
    const started = Date.now();
    const stats = await recorder.close(200);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(stats).toMatchObject({ pending: 1, recorded: 0, ingestReachable: false });
  });
});
