/**
 * `a2a-ledger up` on the real stack: it starts every service as its own process with its log file,
 * restarts one killed with SIGKILL (saying so), and Ctrl-C stops them all.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";

const bin = new URL("../../bin/a2a-ledger.js", import.meta.url).pathname;

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("a2a-ledger up on the real stack", () => {
  it("runs each service as its own process with its log in one place, restarts one that was killed, and Ctrl-C stops every one of them", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "up-"));
    const suffix = `up-${randomUUID().slice(0, 8)}`;
    const operatorToken = `operator-${randomUUID()}`;
    const child = spawn(process.execPath, [bin, "up"], {
      env: {
        ...process.env,
        A2A_LEDGER_DATA_DIR: dataDir,
        A2A_LEDGER_TOPIC_SUFFIX: suffix,
        A2A_LEDGER_INGEST_PORT: "0",
        A2A_LEDGER_PROJECTOR_PORT: "0",
        A2A_LEDGER_DISPATCHER_PORT: "0",
        A2A_LEDGER_KAFKA_LOG_LEVEL: "nothing",
        A2A_LEDGER_INGEST_TOKENS: operatorToken,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    // A failed expectation must not leave the services running for the rest of the suite.
    onTestFinished(() => {
      if (child.exitCode === null) child.kill("SIGINT");
    });
    const deadline = Date.now() + 180_000;
    while (!out.includes("running; Ctrl-C stops every process")) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`up did not come up:\n${out}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const processes = [...out.matchAll(/^process (\S+): pid (\d+)(?:, (\S+))?, log (\S+)$/gm)].map((m) => ({
      name: m[1] as string,
      pid: Number(m[2]),
      url: m[3],
      log: m[4] as string,
    }));
    expect(processes.map((p) => p.name)).toEqual(["ingest", "reconciler", "projector", "dispatcher"]);
    expect(out).toContain(`logs: ${join(dataDir, "logs")}/<process>.log`);
    for (const p of processes) {
      expect(p.pid).not.toBe(child.pid);
      expect(alive(p.pid), p.name).toBe(true);
      expect(p.log).toBe(join(dataDir, "logs", `${p.name}.log`));
      expect(readFileSync(p.log, "utf8").length, p.name).toBeGreaterThan(0);
    }
    const dispatcher = processes.find((p) => p.name === "dispatcher");
    expect((await fetch(`${dispatcher?.url}/healthz`)).status).toBe(200);
    const ingest = processes.find((p) => p.name === "ingest");
    // up binds ingest to tokens: a request without one is refused, the operator's own token is heard.
    const post = (headers: Record<string, string>) =>
      fetch(`${ingest?.url}/v1/observations`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: "[]",
      });
    expect((await post({})).status).toBe(401);
    expect((await post({ authorization: `Bearer ${operatorToken}` })).status).toBe(400);

    // A service killed under up is said to have died and is restarted, ingest at the address it had.
    const restartedPids: number[] = [];
    for (const name of ["reconciler", "ingest"]) {
      const dead = processes.find((p) => p.name === name);
      process.kill(dead?.pid ?? -1, "SIGKILL");
      const restarted = new RegExp(`^process ${name} restarted \\(restart 1\\): pid (\\d+)`, "m");
      for (const until = Date.now() + 120_000; !restarted.test(out); await new Promise((r) => setTimeout(r, 200))) {
        if (Date.now() > until || child.exitCode !== null) throw new Error(`${name} was not restarted:\n${out}`);
      }
      expect(out).toMatch(
        new RegExp(
          `^process ${name} \\(pid ${dead?.pid}\\) died \\(signal SIGKILL\\) after \\d+\\.\\d s up: restart 1 in 1 s, at \\d{4}-`,
          "m",
        ),
      );
      const pid = Number(restarted.exec(out)?.[1]);
      expect(alive(pid), `${name} runs again`).toBe(true);
      restartedPids.push(pid);
      expect(readFileSync(dead?.log ?? "", "utf8")).toContain('"source":"supervisor","kind":"died"');
    }
    expect((await post({})).status, "ingest answers at its address again").toBe(401);

    child.kill("SIGINT");
    expect(await exited).toBe(0);
    expect(out).toContain(`stopped ${processes.length} processes`);
    for (const p of processes) expect(alive(p.pid), `${p.name} still runs`).toBe(false);
    for (const pid of restartedPids) expect(alive(pid)).toBe(false);
    expect(out, "a stop is not a death").not.toMatch(/died \(exit code 0\)|died \(signal SIGTERM\)/);
  }, 360_000);
});
