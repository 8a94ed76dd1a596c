import { Writable } from "node:stream";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { createLogger, levelFromEnv, loggerOptions, logTail } from "./index.ts";

function capture(service: string) {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  });
  return { log: pino(loggerOptions(service, "info"), sink), lines };
}

describe("the shared logger", () => {
  it("writes JSON lines with the service, a textual level and an ISO time", () => {
    const { log, lines } = capture("reconciler");
    log.info({ partition: 3 }, "partitions assigned");
    expect(lines[0]).toMatchObject({ level: "info", service: "reconciler", partition: 3, msg: "partitions assigned" });
    expect(String(lines[0]?.["time"])).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it("redacts credentials", () => {
    const { log, lines } = capture("ingest");
    log.info({ req: { headers: { authorization: "Bearer secret" } } }, "request");
    expect(JSON.stringify(lines[0])).not.toContain("secret");
  });

  it("takes its level from A2A_LEDGER_LOG_LEVEL and ignores a bad value", () => {
    expect(levelFromEnv({ A2A_LEDGER_LOG_LEVEL: "warn" })).toBe("warn");
    expect(levelFromEnv({ A2A_LEDGER_LOG_LEVEL: "loud" })).toBe("info");
    expect(levelFromEnv({})).toBe("info");
  });

  it("keeps the last lines of a log in memory when given a destination", () => {
    const tail = logTail(2);
    const log = createLogger("reconciler", "debug", tail.destination);
    for (const partition of [1, 2, 3]) log.debug({ partition }, "transaction committed");
    const lines = tail
      .text()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l["partition"])).toEqual([2, 3]);
    expect(lines[0]).toMatchObject({ level: "debug", service: "reconciler", msg: "transaction committed" });
  });
});
