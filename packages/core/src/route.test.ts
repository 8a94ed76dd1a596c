import type { TaskState } from "@a2a-ledger/schemas";
import { describe, expect, it } from "vitest";
import { agentCard, events } from "../test/builders.ts";
import { cardHash } from "./card-hash.ts";
import { replayLog } from "./replay.ts";
import { route, RouteQueryError } from "./route.ts";
import { defaultRuleSetV2 } from "./rules/rule-sets.ts";

const S: TaskState = "TASK_STATE_SUBMITTED";
const W: TaskState = "TASK_STATE_WORKING";
const IR: TaskState = "TASK_STATE_INPUT_REQUIRED";
const C: TaskState = "TASK_STATE_COMPLETED";

/** Given a mesh: w-b verifies input-required (json), w-c too (plain, trusted Acme, durable), w-a only completes; w-d is never probed. */
function mesh() {
  const e = events("r-");
  const card = (org: string, taskStore: "durable" | "ephemeral" = "ephemeral") =>
    agentCard({
      org,
      states: ["submitted", "working", "input-required", "completed", "failed"],
      taskStore,
      skills: [{ id: "summarize", outputModes: ["text/plain", "application/json"] }],
    });
  const a = card("Va");
  const b = card("Vb");
  const c = card("Acme", "durable");
  const log = [
    e.card("w-c", c, { at: 1 }),
    e.probe("w-c", cardHash(c), { at: 2, states: [S, W, IR, C], modes: ["text/plain"], durable: true }),
    e.card("w-b", b, { at: 3 }),
    e.probe("w-b", cardHash(b), { at: 4, states: [S, W, IR, C], modes: ["application/json"] }),
    e.card("w-a", a, { at: 5 }),
    e.probe("w-a", cardHash(a), { at: 6, states: [S, W, C], modes: ["text/plain"] }),
    e.card("w-d", card("Vd"), { at: 7 }),
  ];
  return replayLog(log, defaultRuleSetV2).capabilities;
}

describe("route", () => {
  it("ranks the workers that verified the interrupted state by workerId, with their verified states, modes and policy", () => {
    const answer = route(
      mesh(),
      { skillId: "summarize", state: IR, accept: [], at: 100 },
      { trustedVendors: ["Acme"] },
    );
    expect(answer.resume).toBe(true);
    expect(answer.needs).toEqual([IR]);
    expect(answer.workers.map((w) => [w.workerId, w.rank, w.policy, w.outputModes])).toEqual([
      ["w-b", 1, "verify", ["application/json"]],
      ["w-c", 2, "trust", ["text/plain"]],
    ]);
    expect(answer.workers[0]?.verifiedStates).toEqual([S, W, IR, C]);
    expect(answer.ineligible.map((v) => v.workerId)).toEqual(["w-a", "w-d"]);
    expect(answer.ineligible[0]?.reason).toContain("lack TASK_STATE_INPUT_REQUIRED");
    expect(answer.ineligible[1]?.reason).toContain("not verified by a probe yet");
  });

  it("drops a worker whose verified modes the orchestrator does not accept, and says why", () => {
    const answer = route(mesh(), { skillId: "summarize", state: IR, accept: ["text/*"], at: 100 });
    expect(answer.workers.map((w) => w.workerId)).toEqual(["w-c"]);
    expect(answer.ineligible.find((v) => v.workerId === "w-b")?.reason).toContain("outside accepted [text/*]");
  });

  it("for a new task names every worker that verified completing it", () => {
    const answer = route(mesh(), { skillId: "summarize", state: null, accept: ["text/plain"], at: 100 });
    expect(answer.resume).toBe(false);
    expect(answer.needs).toEqual([C]);
    expect(answer.workers.map((w) => w.workerId)).toEqual(["w-a", "w-c"]);
  });

  it("restarts a task lost while working on a worker that verified working and completing", () => {
    const answer = route(mesh(), { skillId: "summarize", state: W, accept: [], at: 100 });
    expect(answer.needs).toEqual([W, C]);
    expect(answer.workers.map((w) => w.workerId)).toEqual(["w-a", "w-b", "w-c"]);
  });

  it("reads capabilities as of the moment asked: before a probe the worker is not eligible", () => {
    const answer = route(mesh(), { skillId: "summarize", state: IR, accept: [], at: 3 });
    expect(answer.workers.map((w) => w.workerId)).toEqual(["w-c"]);
    expect(answer.ineligible.find((v) => v.workerId === "w-b")?.reason).toContain("not verified by a probe yet");
    expect(answer.ineligible.find((v) => v.workerId === "w-a")?.reason).toBe("no card in force");
  });

  it("answers an empty list with every worker's reason when none is eligible", () => {
    const answer = route(mesh(), { skillId: "translate", state: null, accept: [], at: 100, exclude: ["w-a"] });
    expect(answer.workers).toEqual([]);
    expect(answer.ineligible.map((v) => [v.workerId, v.reason])).toEqual([
      ["w-a", "excluded by the request"],
      ["w-b", "the card in force does not offer skill translate"],
      ["w-c", "the card in force does not offer skill translate"],
      ["w-d", "the card in force does not offer skill translate"],
    ]);
  });

  it("refuses a terminal state with a stable code", () => {
    expect(() => route(mesh(), { skillId: "summarize", state: "TASK_STATE_FAILED", accept: [], at: 100 })).toThrow(
      RouteQueryError,
    );
    try {
      route(mesh(), { skillId: "summarize", state: "TASK_STATE_CANCELED", accept: [], at: 100 });
    } catch (e) {
      expect((e as RouteQueryError).code).toBe("ROUTE_STATE_TERMINAL");
    }
  });
});
