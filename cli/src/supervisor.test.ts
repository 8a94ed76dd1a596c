/**
 * The supervisor with small real processes: readiness from log lines, one log file per process, a restart
 * on the same port, the stop order, SIGKILL for a process that ignores SIGTERM, and a process that dies
 * before it is ready.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readyOnMessage, readyOnMessages, StartError, Supervisor, type ProcessSpec } from "./supervisor.ts";

const dir = mkdtempSync(join(tmpdir(), "supervisor-"));
const script = (name: string, body: string) => {
  const file = join(dir, name);
  writeFileSync(file, body);
  return file;
};
const server = script(
  "server.mjs",
  `import { createServer } from "node:http";
const port = Number(process.argv[2] ?? 0);
const s = createServer((_q, r) => r.end(String(process.pid)));
s.listen(port, "127.0.0.1", () => {
  console.log("plain text first");
  console.log(JSON.stringify({ msg: "listening", url: "http://127.0.0.1:" + s.address().port }));
});
process.on("SIGTERM", () => { console.log(JSON.stringify({ msg: "bye", stoppedAt: process.hrtime.bigint().toString() })); s.close(() => process.exit(0)); });
`,
);
const stubborn = script("stubborn.mjs", `console.log(JSON.stringify({ msg: "listening" })); process.on("SIGTERM", () => console.log(JSON.stringify({ msg: "ignored" }))); setInterval(() => {}, 1000);\n`);
const crash = script("crash.mjs", `console.error("no configuration"); process.exit(3);\n`);

const spec = (name: string, file: string, extra: Partial<ProcessSpec> = {}): ProcessSpec => ({ name, command: process.execPath, args: (port) => [file, String(port)], env: process.env, ready: readyOnMessage("listening"), ...extra });
const alive = (pid: number | undefined) => {
  try {
    process.kill(pid ?? -1, 0);
    return true;
  } catch {
    return false;
  }
};

let sup: Supervisor | undefined;
afterEach(async () => {
  await sup?.stopAll();
  sup = undefined;
});

describe("the supervisor", () => {
  it("starts a process once its log says it is ready, with its URL, and writes everything it prints to its log file", async () => {
    const started: string[] = [];
    sup = new Supervisor(join(dir, "logs-1"), { onStart: (m) => started.push(m.spec.name) });
    const a = await sup.start(spec("a", server));
    expect(a.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await (await fetch(a.url ?? "")).text()).toBe(String(a.child.pid));
    expect(started).toEqual(["a"]);
    expect(a.lines[0]).toEqual({ msg: "plain text first" });
    expect(readFileSync(join(dir, "logs-1", "a.log"), "utf8")).toContain("plain text first");
  });

  it("restarts a process on the port it had: a new pid at the same address, its log appended", async () => {
    sup = new Supervisor(join(dir, "logs-2"));
    const first = await sup.start(spec("w1", server));
    const second = await sup.restart("w1");
    expect(second.url).toBe(first.url);
    expect(second.child.pid).not.toBe(first.child.pid);
    expect(alive(first.child.pid)).toBe(false);
    expect(await (await fetch(second.url ?? "")).text()).toBe(String(second.child.pid));
    expect(readFileSync(join(dir, "logs-2", "w1.log"), "utf8").match(/listening/g)).toHaveLength(2);
  });

  it("stops every process in the reverse order of their start, a restarted one where it stood, and kills one that ignores SIGTERM", async () => {
    sup = new Supervisor(join(dir, "logs-3"), { graceMs: 500 });
    const a = await sup.start(spec("a", server));
    await sup.start(spec("b", server));
    await sup.start(spec("c", stubborn));
    await sup.restart("b");
    const pids = sup.processes.map((m) => m.child.pid);
    const stoppedAt = new Map<string, bigint>();
    for (const m of sup.processes) void m.nextLine((e) => e.msg === "bye", 10_000, "bye").then((e) => stoppedAt.set(m.spec.name, BigInt(String(e.stoppedAt))), () => undefined);
    expect(sup.processes.map((m) => m.spec.name)).toEqual(["a", "b", "c"]);
    await sup.stopAll();
    sup = undefined;
    expect(pids.map(alive)).toEqual([false, false, false]);
    expect((stoppedAt.get("b") ?? 0n) < (stoppedAt.get("a") ?? 0n)).toBe(true);
    expect(await a.exited).toBe(0);
  });

  it("fails a start when the process exits before it is ready, pointing at its log, and refuses starts once stopping", async () => {
    sup = new Supervisor(join(dir, "logs-4"));
    await expect(sup.start(spec("broken", crash))).rejects.toThrow(StartError);
    await expect(sup.start(spec("broken", crash))).rejects.toThrow(/exited \(3\) before it was ready; see .*broken\.log/);
    expect(readFileSync(join(dir, "logs-4", "broken.log"), "utf8")).toContain("no configuration");
    await sup.stopAll();
    await expect(sup.start(spec("late", server))).rejects.toThrow(/stopping/);
    sup = undefined;
  });

  it("waits for every readiness message, and times out with the log's path", async () => {
    sup = new Supervisor(join(dir, "logs-5"));
    const ready = await sup.start(spec("two", server, { ready: readyOnMessages(["plain text first", "listening"], (e) => (typeof e.url === "string" ? e.url : undefined)) }));
    expect(ready.url).toMatch(/^http:/);
    await expect(sup.start(spec("never", server, { ready: readyOnMessage("never said"), startTimeoutMs: 1_000 }))).rejects.toThrow(/never did not log that it is ready within 1000 ms \(see .*never\.log\)/);
  });
});
