import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { IngestRejectedError, IngestUnavailableError, type ObservationInput } from "@a2a-ledger/ingest-client";
import { describe, expect, it } from "vitest";
import { observation } from "../test/observation-fixture.ts";
import { createLogger } from "@a2a-ledger/logging";
import { createMetrics, type ProxyMetrics } from "./metrics.ts";
import { ObservationBuffer, type FailMode, type ObservationSender } from "./observation-buffer.ts";
import { ObservationSpool } from "./observation-spool.ts";

/** Answers each send with the next scripted outcome (the last repeats): "ok", "down", or an error to throw. */
class ScriptedSender implements ObservationSender {
  readonly batches: string[][] = [];
  constructor(private readonly script: ("ok" | "down" | Error)[]) {}
  async send(events: readonly ObservationInput[]): Promise<unknown> {
    const outcome = this.script[Math.min(this.batches.length, this.script.length - 1)]!;
    this.batches.push(events.map((e) => e.eventId));
    if (outcome === "ok") return { accepted: events.length };
    if (outcome === "down") throw new IngestUnavailableError("down", 3, 0, 503, "INGEST_KAFKA_UNAVAILABLE");
    throw outcome;
  }
}

function buffer(
  sender: ObservationSender,
  capacity: number,
  failMode: FailMode = "closed",
  batchMax = 10,
): { buffer: ObservationBuffer; metrics: ProxyMetrics } {
  const metrics = createMetrics();
  return {
    buffer: new ObservationBuffer({
      sender,
      spool: null,
      capacity,
      maxBytes: 1 << 30,
      failMode,
      batchMax,
      flushDelayMs: 0,
      retryInitialMs: 1,
      retryMaxMs: 5,
      metrics,
      log: createLogger("proxy", "silent"),
    }),
    metrics,
  };
}

const value = async (metrics: ProxyMetrics, name: string, labels: Record<string, string> = {}): Promise<number> => {
  const metric = (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === name);
  const entry = (metric?.values ?? []).find((v) =>
    Object.entries(labels).every(([k, l]) => (v.labels as Record<string, unknown>)[k] === l),
  );
  return entry?.value ?? 0;
};

const until = async (condition: () => boolean, timeoutMs = 5_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
};

describe("ObservationBuffer", () => {
  it("sends in order, in batches, and retries a failed batch with the very same eventIds", async () => {
    const sender = new ScriptedSender(["down", "down", "ok"]);
    const { buffer: b, metrics } = buffer(sender, 100, "closed", 3);
    for (let i = 0; i < 5; i++) b.offer(observation(i));
    b.start();
    await until(() => b.length === 0);
    expect(sender.batches).toEqual([
      ["e-0", "e-1", "e-2"],
      ["e-0", "e-1", "e-2"],
      ["e-0", "e-1", "e-2"],
      ["e-3", "e-4"],
    ]);
    expect(b.ledgerReachable).toBe(true);
    expect(await value(metrics, "a2a_proxy_observations_sent_total")).toBe(5);
    expect(await value(metrics, "a2a_proxy_ingest_failures_total")).toBe(2);
    await b.close(0);
  });

  it("fail-closed: refuses new dispatches at capacity, everything recorded at twice it, and drops only past that", async () => {
    const { buffer: b, metrics } = buffer(new ScriptedSender(["down"]), 3, "closed");
    for (let i = 0; i < 3; i++) b.offer(observation(i));
    expect(b.admission(true)).toBe("refuse");
    expect(b.admission(false)).toBe("admit");
    for (let i = 3; i < 6; i++) expect(b.offer(observation(i))).toBe(true);
    expect(b.admission(false)).toBe("refuse");
    expect(b.offer(observation(6))).toBe(false);
    expect(await value(metrics, "a2a_proxy_observations_dropped_total", { reason: "overflow" })).toBe(1);
    await b.close(0);
  });

  it("reserves a slot per admitted exchange until it ends: K free slots admit exactly K exchanges at once", async () => {
    const { buffer: b } = buffer(new ScriptedSender(["down"]), 3, "closed");
    b.offer(observation(0));
    // Two slots left: of five dispatches admitted together, two get through.
    const held = Array.from({ length: 5 }, () => b.reserve(true));
    expect(held.filter((r) => r !== null)).toHaveLength(2);
    expect(b.admission(true)).toBe("refuse");
    // Traffic about dispatched tasks has up to twice the bound: 6 − 1 queued − 2 held = 3 more.
    const others = Array.from({ length: 5 }, () => b.reserve(false));
    expect(others.filter((r) => r !== null)).toHaveLength(3);
    // Their observations arrive while they hold their slots; offers are not refused by the reservations.
    expect(b.offer(observation(1))).toBe(true);
    for (const release of [...held, ...others]) {
      release?.();
      release?.();
    }
    // Released (twice is harmless): two queued of three, one dispatch fits again.
    expect(b.admission(true)).toBe("admit");
    expect(b.reserve(true)).not.toBeNull();
    expect(b.reserve(true)).toBeNull();
    await b.close(0);
  });

  it("admits dispatches again once the ledger took the backlog", async () => {
    const sender = new ScriptedSender(["down", "down", "ok"]);
    const { buffer: b } = buffer(sender, 2, "closed");
    b.offer(observation(0));
    b.offer(observation(1));
    expect(b.admission(true)).toBe("refuse");
    b.start();
    await until(() => b.admission(true) === "admit");
    expect(b.length).toBe(0);
    await b.close(0);
  });

  it("fail-open: admits everything and counts each observation that does not fit", async () => {
    const { buffer: b, metrics } = buffer(new ScriptedSender(["down"]), 2, "open");
    for (let i = 0; i < 5; i++) b.offer(observation(i));
    expect(b.admission(true)).toBe("admit");
    expect(b.length).toBe(2);
    expect(await value(metrics, "a2a_proxy_observations_dropped_total", { reason: "buffer_full" })).toBe(3);
    expect(await value(metrics, "a2a_proxy_observations_total", { type: "TaskStateObserved" })).toBe(5);
    await b.close(0);
  });

  it("drops the observations the ledger rejects as invalid and sends the rest of their batch again", async () => {
    const rejected = new IngestRejectedError(
      400,
      "INGEST_INVALID_EVENT",
      "bad",
      [{ index: 1, path: "state", message: "unknown" }],
      0,
    );
    const sender = new ScriptedSender([rejected, "ok"]);
    const { buffer: b, metrics } = buffer(sender, 10);
    for (let i = 0; i < 3; i++) b.offer(observation(i));
    b.start();
    await until(() => b.length === 0);
    expect(sender.batches).toEqual([
      ["e-0", "e-1", "e-2"],
      ["e-0", "e-2"],
    ]);
    expect(await value(metrics, "a2a_proxy_observations_dropped_total", { reason: "rejected" })).toBe(1);
    await b.close(0);
  });

  it("halves a batch the ledger finds too large, and drops a single observation that is", async () => {
    const tooLarge = new IngestRejectedError(413, "INGEST_BODY_TOO_LARGE", "big", [], 0);
    const sender = new ScriptedSender([tooLarge, tooLarge, "ok", "ok", tooLarge, "ok"]);
    const { buffer: b, metrics } = buffer(sender, 10, "closed", 4);
    for (let i = 0; i < 4; i++) b.offer(observation(i));
    b.start();
    await until(() => b.length === 0);
    expect(sender.batches).toEqual([["e-0", "e-1", "e-2", "e-3"], ["e-0", "e-1"], ["e-0"], ["e-1"], ["e-2"], ["e-3"]]);
    expect(await value(metrics, "a2a_proxy_observations_dropped_total", { reason: "rejected" })).toBe(1);
    await b.close(0);
  });

  it("on close sends what it can within the grace and counts the rest as dropped", async () => {
    const { buffer: b, metrics } = buffer(new ScriptedSender(["down"]), 10);
    b.offer(observation(0));
    b.offer(observation(1));
    b.start();
    expect(await b.close(30)).toBe(2);
    expect(await value(metrics, "a2a_proxy_observations_dropped_total", { reason: "shutdown" })).toBe(2);
    expect(b.offer(observation(2))).toBe(false);
  });
});

describe("ObservationBuffer on a spool", () => {
  const log = createLogger("proxy", "silent");
  const spoolIn = (dir: string) =>
    ObservationSpool.open({
      dir,
      log,
      metrics: {
        badRecord: () => undefined,
        writeError: () => undefined,
        failing: () => undefined,
        fsyncSeconds: () => undefined,
        diskBytes: () => undefined,
      },
    });
  const onSpool = (dir: string, sender: ObservationSender, limits: { capacity?: number; maxBytes?: number } = {}) => {
    const { spool, replayed } = spoolIn(dir);
    const metrics = createMetrics();
    const b = new ObservationBuffer({
      sender,
      spool,
      replayed,
      capacity: limits.capacity ?? 100,
      maxBytes: limits.maxBytes ?? 1 << 30,
      failMode: "closed",
      batchMax: 10,
      flushDelayMs: 0,
      retryInitialMs: 1,
      retryMaxMs: 5,
      metrics,
      log,
    });
    return { buffer: b, metrics };
  };

  it("what a run left unsent is sent first at the next start, and what the ledger took is not sent again", async () => {
    const dir = mkdtempSync(join(tmpdir(), "buffer-spool-"));
    const first = onSpool(dir, new ScriptedSender(["ok"]));
    first.buffer.offer(observation(0));
    first.buffer.offer(observation(1));
    first.buffer.start();
    await until(() => first.buffer.length === 0);
    const down = new ScriptedSender(["down"]);
    const second = onSpool(dir, down);
    expect(second.buffer.length).toBe(0);
    second.buffer.offer(observation(2));
    second.buffer.offer(observation(3));
    await second.buffer.kept();
    second.buffer.start();
    await until(() => down.batches.length > 0);
    // Stopped before the ledger took 2 and 3: they stay in the spool.
    expect(await second.buffer.close(0)).toBe(2);
    expect(await value(second.metrics, "a2a_proxy_observations_dropped_total", { reason: "shutdown" })).toBe(0);
    const sender = new ScriptedSender(["ok"]);
    const third = onSpool(dir, sender);
    expect(await value(third.metrics, "a2a_proxy_spool_replayed_total")).toBe(2);
    third.buffer.offer(observation(4));
    third.buffer.start();
    await until(() => third.buffer.length === 0);
    expect(sender.batches.flat()).toEqual(["e-2", "e-3", "e-4"]);
    await third.buffer.close(0);
  });

  it("fail-closed by bytes too: new dispatches are refused once the waiting records pass the byte bound", async () => {
    const dir = mkdtempSync(join(tmpdir(), "buffer-spool-"));
    const { buffer: b, metrics } = onSpool(dir, new ScriptedSender(["down"]), { capacity: 1_000, maxBytes: 1_000 });
    const big = (i: number): ObservationInput => ({ ...observation(i), correlationId: "x".repeat(150) });
    let offered = 0;
    while (b.admission(true) === "admit") b.offer(big(offered++));
    expect(offered).toBeGreaterThan(2);
    expect(offered).toBeLessThan(10);
    expect(await value(metrics, "a2a_proxy_buffer_bytes")).toBeGreaterThanOrEqual(1_000);
    expect(b.admission(false)).toBe("admit");
    while (b.admission(false) === "admit") b.offer(big(offered++));
    expect(await value(metrics, "a2a_proxy_buffer_bytes")).toBeGreaterThanOrEqual(2_000);
    expect(b.offer(big(offered++))).toBe(false);
    expect(await value(metrics, "a2a_proxy_observations_dropped_total", { reason: "overflow" })).toBe(1);
    await b.close(0);
  });
});
