/**
 * `a2a-ledger up`: the CLI runs the services as processes and imports none of their code (the package
 * graph's rules are in ../package-graph.test.ts); bad arguments are usage errors; the demo's files.
 * On the real stack: up.int.test.ts. The demo (`up --demo`, the live §1 story) is the end-to-end test of
 * mesh/orchestrator.
 */
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
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
