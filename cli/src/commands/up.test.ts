/**
 * `a2a-ledger up`: the CLI runs the services as processes and imports none of their code (the package
 * graph's rules are in ../package-graph.test.ts); bad arguments are usage errors; and,
 * on the real stack, `up` starts every service as its own process with its log file, restarts one killed
 * with SIGKILL (saying so), and Ctrl-C stops them all.
 * The demo (`up --demo`, the live §1 story) is the end-to-end test of mesh/orchestrator.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { topicNames } from "@a2a-ledger/kafka";
import { repoRoot } from "@a2a-ledger/infra";
import { parseStoryConfig } from "@a2a-ledger/orchestrator";
import { run } from "../../test/run.ts";
import {
  demoIds,
  demoStory,
  demoWorkersFile,
  dispatcherSpec,
  entryPoints,
  ingestSpec,
  jsAgentSpec,
  newIngestTokens,
  type PlanContext,
  proxyLabels,
  proxySpec,
} from "../mesh-plan.ts";

const bin = new URL("../../bin/a2a-ledger.js", import.meta.url).pathname;

describe("a2a-ledger up's arguments", () => {
  it("refuses unknown options and --exit-after-demo without --demo as usage errors", async () => {
    const unknown = await run(["up", "--bogus"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/Unknown option '--bogus'[\s\S]*usage: a2a-ledger up/);
    const alone = await run(["up", "--exit-after-demo"]);
    expect(alone).toMatchObject({ code: 2, stderr: expect.stringContaining("--exit-after-demo needs --demo") });
  });
});

describe("the demo's files", () => {
  const workers = (["W1", "W2", "W3"] as const).map((label, i) => ({
    label,
    workerId: `${label}-abc123`,
    workerUrl: `http://127.0.0.1:2100${i + 1}`,
    proxyUrl: `http://127.0.0.1:2200${i + 1}`,
  }));

  it("give the orchestrator a story it accepts, naming every worker by its proxy", () => {
    const story = parseStoryConfig(JSON.stringify(demoStory("abc123", workers)));
    expect(story.workers.w1).toEqual({ workerId: "W1-abc123", url: "http://127.0.0.1:22001" });
    expect(story.acceptedOutputModes).toEqual(["application/json", "text/plain"]);
    expect(story.tasks).toEqual(demoIds("abc123").tasks);
  });

  it("give the dispatcher every worker through its proxy, with a resume message that stops in INPUT_REQUIRED and one parked canary", () => {
    const file = demoWorkersFile(workers) as {
      workers: Record<
        string,
        {
          url: string;
          workerUrl: string;
          skills: {
            answer: { redispatch: { resume: Record<string, string> }; canaries: { message: string; park?: boolean }[] };
          };
        }
      >;
    };
    expect(Object.keys(file.workers)).toEqual(["W1-abc123", "W2-abc123", "W3-abc123"]);
    expect(file.workers["W3-abc123"]).toMatchObject({
      url: "http://127.0.0.1:22003",
      workerUrl: "http://127.0.0.1:21003",
    });
    expect(file.workers["W3-abc123"]?.skills.answer.redispatch.resume.TASK_STATE_INPUT_REQUIRED).toMatch(
      /^need-input /,
    );
    expect(file.workers["W1-abc123"]?.skills.answer.canaries.filter((c) => c.park)).toEqual([
      { message: "need-input probe canary", park: true },
    ]);
  });

  it("start every process from an entry point in this checkout", () => {
    const entries = entryPoints(repoRoot);
    for (const path of Object.values(entries)) expect(existsSync(path), path).toBe(true);
  });

  it("give each proxy, the dispatcher and the guarded worker its own ingest token, bound at ingest to the observer it writes as", () => {
    const tokens = newIngestTokens();
    const ctx: PlanContext = {
      root: repoRoot,
      entries: entryPoints(repoRoot),
      env: { A2A_LEDGER_INGEST_TOKENS: "operator-token-0123456789" },
      topics: topicNames,
      tokens,
    };
    const entries = String(ingestSpec(ctx).env.A2A_LEDGER_INGEST_TOKENS)
      .split(",")
      .map((e) => e.split("="));
    const proxies = proxyLabels.map((label) =>
      String(
        proxySpec(ctx, `${label}-run1`, label, "http://127.0.0.1:1", "http://127.0.0.1:2").env
          .A2A_LEDGER_PROXY_INGEST_TOKEN,
      ),
    );
    const dispatcher = String(
      dispatcherSpec(ctx, "http://127.0.0.1:2", undefined).env.A2A_LEDGER_DISPATCHER_INGEST_TOKEN,
    );
    expect(new Set([...proxies, dispatcher]).size).toBe(4);
    for (const token of [...proxies, dispatcher]) expect(token.length).toBeGreaterThanOrEqual(16);
    const guard = String(
      jsAgentSpec(ctx, "w2", undefined, { workerId: "W2-run1", ingestUrl: "http://127.0.0.1:2" }).env
        .GUARD_INGEST_TOKEN,
    );
    expect(guard.length).toBeGreaterThanOrEqual(16);
    expect(jsAgentSpec(ctx, "w1").env.GUARD_INGEST_TOKEN, "an unguarded worker gets no token").toBeUndefined();
    expect(entries).toEqual([
      ["operator-token-0123456789"],
      [dispatcher, "dispatcher"],
      ...proxyLabels.map((label, i) => [proxies[i], `proxy:${label}-*`]),
      [guard, "guard:W2-*"],
    ]);
  });
});

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
