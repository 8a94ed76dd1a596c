/**
 * The supervisor with small real processes: readiness from log lines, one log file per process, a restart
 * on the same port, the stop order, SIGKILL for a process that ignores SIGTERM, a process that dies
 * before it is ready, and a service that dies: restarted after a growing pause and reported, unless it
 * was meant to end, or was stopped, or dies too often.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  readyOnMessage,
  readyOnMessages,
  StartError,
  Supervisor,
  type ProcessSpec,
  type SupervisorEvent,
} from "./supervisor.ts";

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
// Its port from the environment (PORT), as the services take theirs.
const envServer = script(
  "env-server.mjs",
  `import { createServer } from "node:http";
const s = createServer((_q, r) => r.end(String(process.pid)));
s.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => console.log(JSON.stringify({ msg: "listening", url: "http://127.0.0.1:" + s.address().port })));
`,
);
const oneShot = script(
  "one-shot.mjs",
  `console.log(JSON.stringify({ msg: "listening" })); setTimeout(() => process.exit(0), 100);\n`,
);
// Ready at its first start only: every later start fails before it is ready (its port was taken, say).
const firstStartOnly = (marker: string) =>
  script(
    "first-start-only.mjs",
    `import { existsSync, writeFileSync } from "node:fs";
if (existsSync(${JSON.stringify(marker)})) { console.error("address in use"); process.exit(9); }
writeFileSync(${JSON.stringify(marker)}, "");
console.log(JSON.stringify({ msg: "listening" }));
setTimeout(() => process.exit(1), 20);
`,
  );
const crashLoop = script(
  "crash-loop.mjs",
  `console.log(JSON.stringify({ msg: "listening" })); setTimeout(() => { console.error("out of luck"); process.exit(7); }, 20);\n`,
);
const stubborn = script(
  "stubborn.mjs",
  `console.log(JSON.stringify({ msg: "listening" })); process.on("SIGTERM", () => console.log(JSON.stringify({ msg: "ignored" }))); setInterval(() => {}, 1000);\n`,
);
const crash = script("crash.mjs", `console.error("no configuration"); process.exit(3);\n`);

const spec = (name: string, file: string, extra: Partial<ProcessSpec> = {}): ProcessSpec => ({
  name,
  command: process.execPath,
  args: (port) => [file, String(port)],
  env: process.env,
  ready: readyOnMessage("listening"),
  ...extra,
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Resolves with the events once `until` holds for them (polled; fails after 10 s). */
async function eventsUntil(
  events: SupervisorEvent[],
  until: (events: SupervisorEvent[]) => boolean,
): Promise<SupervisorEvent[]> {
  for (const deadline = Date.now() + 10_000; !until(events); await sleep(20))
    if (Date.now() > deadline) throw new Error(`events so far: ${JSON.stringify(events)}`);
  return events;
}
const kinds = (events: SupervisorEvent[]) => events.map((e) => `${e.kind} ${e.name}`);
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
    for (const m of sup.processes)
      void m
        .nextLine((e) => e.msg === "bye", 10_000, "bye")
        .then(
          (e) => stoppedAt.set(m.spec.name, BigInt(String(e.stoppedAt))),
          () => undefined,
        );
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
    await expect(sup.start(spec("broken", crash))).rejects.toThrow(
      /exited \(3\) before it was ready; see .*broken\.log/,
    );
    expect(readFileSync(join(dir, "logs-4", "broken.log"), "utf8")).toContain("no configuration");
    await sup.stopAll();
    await expect(sup.start(spec("late", server))).rejects.toThrow(/stopping/);
    sup = undefined;
  });

  it("waits for every readiness message, and times out with the log's path", async () => {
    sup = new Supervisor(join(dir, "logs-5"));
    const ready = await sup.start(
      spec("two", server, {
        ready: readyOnMessages(["plain text first", "listening"], (e) =>
          typeof e.url === "string" ? e.url : undefined,
        ),
      }),
    );
    expect(ready.url).toMatch(/^http:/);
    await expect(
      sup.start(spec("never", server, { ready: readyOnMessage("never said"), startTimeoutMs: 1_000 })),
    ).rejects.toThrow(/never did not log that it is ready within 1000 ms \(see .*never\.log\)/);
  });
});

describe("a service that dies", () => {
  const restart = { initialDelayMs: 200, maxDelayMs: 400, stableAfterMs: 60_000, maxDeaths: 5, windowMs: 60_000 };

  it("is restarted on the port it had after a pause that grows, each death and restart reported on the console and in its log", async () => {
    const events: SupervisorEvent[] = [];
    const at = new Map<SupervisorEvent, number>();
    sup = new Supervisor(join(dir, "logs-6"), { restart, onEvent: (e) => (events.push(e), at.set(e, Date.now())) });
    const first = await sup.start(spec("reconciler", envServer, { args: () => [envServer], portEnv: "PORT" }));
    await sup.start(spec("after", server));
    process.kill(first.child.pid ?? -1, "SIGKILL");
    await eventsUntil(events, (e) => e.length === 2);
    const second = sup.find("reconciler");
    expect(kinds(events)).toEqual(["died reconciler", "restarted reconciler"]);
    expect(events[0]).toMatchObject({ exit: "signal SIGKILL", attempt: 1, delayMs: 200, pid: first.child.pid });
    expect(events[0]?.message).toMatch(
      new RegExp(
        `^reconciler \\(pid ${first.child.pid}\\) died \\(signal SIGKILL\\) after \\d+\\.\\d s up: restart 1 in 0\\.2 s, at \\d{4}-`,
      ),
    );
    expect(events[1]).toMatchObject({ attempt: 1, pid: second?.child.pid });
    expect(
      (at.get(events[1] as SupervisorEvent) ?? 0) - (at.get(events[0] as SupervisorEvent) ?? 0),
    ).toBeGreaterThanOrEqual(200);
    expect(second?.child.pid).not.toBe(first.child.pid);
    expect(second?.url).toBe(first.url);
    expect(await (await fetch(second?.url ?? "")).text()).toBe(String(second?.child.pid));
    expect(
      sup.processes.map((m) => m.spec.name),
      "it keeps its place in the stop order",
    ).toEqual(["reconciler", "after"]);

    // Dead again soon: a longer pause (200 ms doubled).
    process.kill(second?.child.pid ?? -1, "SIGKILL");
    await eventsUntil(events, (e) => e.length === 4);
    expect(events[2]).toMatchObject({ kind: "died", attempt: 2, delayMs: 400 });
    expect(
      (at.get(events[3] as SupervisorEvent) ?? 0) - (at.get(events[2] as SupervisorEvent) ?? 0),
    ).toBeGreaterThanOrEqual(400);
    // The log line of an event is appended to the file as it is reported, not before: read until it is there.
    const supervisorLines = () =>
      readFileSync(join(dir, "logs-6", "reconciler.log"), "utf8")
        .split("\n")
        .filter((l) => l.includes('"source":"supervisor"'))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    for (const deadline = Date.now() + 5_000; supervisorLines().length < 4 && Date.now() < deadline; ) await sleep(20);
    const log = supervisorLines();
    expect(log.map((l) => l.kind)).toEqual(["died", "restarted", "died", "restarted"]);
    expect(log[0]).toMatchObject({ name: "reconciler", exit: "signal SIGKILL", attempt: 1, msg: events[0]?.message });

    // Stopping is not a death.
    const last = sup.find("reconciler");
    await sup.stopAll();
    sup = undefined;
    await sleep(600);
    expect(events).toHaveLength(4);
    expect(alive(last?.child.pid)).toBe(false);
  });

  it("is not restarted when it was meant to end, nor when the supervisor stopped or restarted it (one restart, not two)", async () => {
    const events: SupervisorEvent[] = [];
    sup = new Supervisor(join(dir, "logs-7"), { restart, onEvent: (e) => events.push(e) });
    const story = await sup.start(spec("orchestrator", oneShot, { lifetime: "task" }));
    expect(await story.exited).toBe(0);
    const w1 = await sup.start(spec("W1", server));
    const stopped = await sup.start(spec("stopped", server));
    await sup.stop(stopped);
    // W1 dies, and its owner restarts it before the supervisor's pause is over: it restarts once.
    process.kill(w1.child.pid ?? -1, "SIGKILL");
    await eventsUntil(events, (e) => e.length === 1);
    const restarted = await sup.restart("W1");
    await sleep(600);
    expect(kinds(events)).toEqual(["died W1"]);
    expect(sup.find("W1")).toBe(restarted);
    expect(alive(restarted.child.pid)).toBe(true);
    expect(restarted.url).toBe(w1.url);
  });

  it("is given up when it dies too often within the window, with a message that says so", async () => {
    const events: SupervisorEvent[] = [];
    sup = new Supervisor(join(dir, "logs-8"), {
      restart: { ...restart, initialDelayMs: 50, maxDeaths: 3, windowMs: 10_000 },
      onEvent: (e) => events.push(e),
    });
    await sup.start(spec("projector", crashLoop));
    const gaveUp = await sup.gaveUp;
    expect(kinds(events)).toEqual([
      "died projector",
      "restarted projector",
      "died projector",
      "restarted projector",
      "gave-up projector",
    ]);
    expect(gaveUp).toBe(events[4]);
    expect(gaveUp).toMatchObject({ exit: "exit code 7", deaths: 3 });
    expect(gaveUp.message).toMatch(
      /^projector \(pid \d+\) died \(exit code 7\) after \d+\.\d s up, 3 deaths within 10 s: given up, not restarted again \(see .*projector\.log\)$/,
    );
    await sleep(300);
    expect(events).toHaveLength(5);
    expect(readFileSync(join(dir, "logs-8", "projector.log"), "utf8")).toContain('"kind":"gave-up"');
  });

  it("counts a restart that does not become ready as a death, says so without a pid, and gives up", async () => {
    const events: SupervisorEvent[] = [];
    sup = new Supervisor(join(dir, "logs-9"), {
      restart: { ...restart, initialDelayMs: 50, maxDeaths: 3, windowMs: 10_000 },
      onEvent: (e) => events.push(e),
    });
    await sup.start(spec("ingest", firstStartOnly(join(dir, "ingest-started"))));
    const gaveUp = await sup.gaveUp;
    expect(kinds(events)).toEqual(["died ingest", "died ingest", "gave-up ingest"]);
    expect(events[0]).toMatchObject({ exit: "exit code 1", attempt: 1, delayMs: 50 });
    expect(events[1]).toMatchObject({ pid: undefined, attempt: 2, delayMs: 100 });
    expect(events[1]?.message).toMatch(
      /^ingest did not start again \(restart 1: ingest exited \(9\) before it was ready; see .*ingest\.log\): restart 2 in 0\.1 s, at /,
    );
    expect(gaveUp.message).toMatch(
      /^ingest did not start again \(restart 2: ingest exited \(9\) before it was ready; see .*ingest\.log\), 3 deaths within 10 s: given up, not restarted again$/,
    );
    expect(readFileSync(join(dir, "logs-9", "ingest.log"), "utf8")).toContain("address in use");
  });
});
