import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { stopOnSignal, type StopLog } from "./stop-on-signal.ts";

function recorder(): StopLog & { lines: string[] } {
  const lines: string[] = [];
  return { lines, info: (_o, msg) => lines.push(`info ${msg}`), error: (_o, msg) => lines.push(`error ${msg}`) };
}

describe("stopOnSignal", () => {
  it("runs stop once on the first signal, ignores the next ones, and exits 0 when it completes", async () => {
    const source = new EventEmitter();
    const log = recorder();
    let calls = 0;
    let finish = () => {};
    const code = stopOnSignal({
      stop: () => ((calls += 1), new Promise<void>((r) => (finish = r))),
      graceMs: 5_000,
      log,
      source,
    });
    source.emit("SIGTERM");
    source.emit("SIGINT");
    source.emit("SIGTERM");
    expect(calls).toBe(1);
    finish();
    expect(await code).toBe(0);
    expect(log.lines).toEqual(["info stopping"]);
    expect(source.listenerCount("SIGTERM")).toBe(1);
  });

  it("exits 1 and logs why when stop fails", async () => {
    const source = new EventEmitter();
    const log = recorder();
    const code = stopOnSignal({ stop: () => Promise.reject(new Error("broker gone")), graceMs: 5_000, log, source });
    source.emit("SIGINT");
    expect(await code).toBe(1);
    expect(log.lines).toEqual(["info stopping", "error stop failed"]);
  });

  it("exits 1 when stop outlives the grace period", async () => {
    const source = new EventEmitter();
    const log = recorder();
    const code = stopOnSignal({ stop: () => new Promise<void>(() => {}), graceMs: 30, log, source });
    source.emit("SIGTERM");
    expect(await code).toBe(1);
    expect(log.lines).toEqual(["info stopping", "error stop outlived its grace period; exiting"]);
  });

  it("does nothing until a signal arrives", async () => {
    const source = new EventEmitter();
    let calls = 0;
    const code = stopOnSignal({ stop: async () => void (calls += 1), graceMs: 30, log: recorder(), source });
    const early = await Promise.race([code, new Promise((r) => setTimeout(() => r("pending"), 60))]);
    expect(early).toBe("pending");
    expect(calls).toBe(0);
  });
});
