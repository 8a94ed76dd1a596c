import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isAlive, runningPid, startDetached, startTimeOf, stopProcess } from "./jvm-process.ts";

const dir = mkdtempSync(join(tmpdir(), "jvm-process-"));
const files = (name: string) => ({ pidFile: join(dir, `${name}.pid`), logFile: join(dir, `${name}.out`) });

describe("pid files", () => {
  it("name a process only while that very process runs: a reused pid with another start time is stale", () => {
    const own = startTimeOf(process.pid);
    expect(own).toMatch(/^\d+$/);
    const f = files("reused");
    writeFileSync(f.pidFile, `${process.pid}\n${own}\n`);
    expect(runningPid(f)).toBe(process.pid);
    writeFileSync(f.pidFile, `${process.pid}\n${Number(own) + 1}\n`);
    expect(runningPid(f)).toBeUndefined();
    // A pid file of the older form (the pid alone) still names a live pid.
    writeFileSync(f.pidFile, `${process.pid}\n`);
    expect(runningPid(f)).toBe(process.pid);
    writeFileSync(f.pidFile, "not a pid\n");
    expect(runningPid(f)).toBeUndefined();
  });

  it("record the start time of a detached process, and stopping it leaves no pid file behind", async () => {
    const f = files("sleeper");
    const pid = startDetached("sleep", ["30"], f);
    const [pidLine, started] = readFileSync(f.pidFile, "utf8").split("\n");
    expect(Number(pidLine)).toBe(pid);
    expect(started).toBe(startTimeOf(pid));
    expect(runningPid(f)).toBe(pid);
    expect(await stopProcess(f, 5_000)).toBe(true);
    expect(isAlive(pid)).toBe(false);
    expect(runningPid(f)).toBeUndefined();
  });
});
