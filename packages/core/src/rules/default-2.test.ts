/**
 * What default/2 decides differently from default/1: one spec per fix, each failing on default/1
 * (fixedInDefault2 checks that default/1 decides otherwise) and passing on default/2.
 */
import type { TaskState } from "@a2a-ledger/schemas";
import { describe, expect, it } from "vitest";
import { agentCard, events } from "../../test/builders.ts";
import { fixedInDefault2, given } from "../../test/given.ts";
import { CapabilityTable } from "../capabilities.ts";
import { cardHash } from "../card-hash.ts";
import { createDecider } from "../decider.ts";
import { applyCapabilityUpdates, foldBatch } from "../fold.ts";
import { replay } from "../replay.ts";
import { defaultRuleSet } from "./rule-sets.ts";

const all: TaskState[] = [
  "TASK_STATE_SUBMITTED",
  "TASK_STATE_WORKING",
  "TASK_STATE_INPUT_REQUIRED",
  "TASK_STATE_COMPLETED",
];
const noInterrupt: TaskState[] = ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED"];
const lifecycle = ["submitted", "working", "input-required", "completed", "failed"];

/** Three probed workers: w1 and w2 keep nothing interrupted; w3 verifies input-required. */
function mesh(e: ReturnType<typeof events>, o: { w3Skill?: string } = {}) {
  const w1 = agentCard({
    org: "One",
    states: lifecycle,
    skills: [{ id: "summarize", outputModes: ["application/json"] }],
  });
  const w2 = agentCard({ org: "Two", states: lifecycle, skills: [{ id: "summarize", outputModes: ["text/plain"] }] });
  const w3 = agentCard({
    org: "Three",
    states: lifecycle,
    taskStore: "durable",
    skills: [
      { id: "summarize", outputModes: ["text/plain"] },
      { id: "translate", outputModes: ["text/plain"] },
    ],
  });
  return [
    e.card("w1", w1, { at: 1 }),
    e.card("w2", w2, { at: 2 }),
    e.card("w3", w3, { at: 3 }),
    e.probe("w1", cardHash(w1), { at: 10, states: noInterrupt, modes: ["application/json"] }),
    e.probe("w2", cardHash(w2), { at: 11, states: noInterrupt, modes: ["text/plain"] }),
    e.probe("w3", cardHash(w3), {
      at: 12,
      states: all,
      modes: ["text/plain"],
      skillId: o.w3Skill ?? "summarize",
      durable: true,
    }),
  ];
}

describe("default/2: losses are judged per server task", () => {
  it("never lets another attempt's terminal state, seen by an observer with a later clock, silence a loss", () => {
    const e = events();
    fixedInDefault2([
      ...mesh(e),
      e.dispatch("t", "w1", { at: 100_000 }),
      e.state("t", "w1", "a1", "failed", { at: 100_100, observer: "orchestrator" }),
      e.dispatch("t", "w2", { at: 101_000, attempt: 2, messageId: "t-m2" }),
      // the proxy in front of w2 runs a minute behind
      e.state("t", "w2", "a2", "input-required", { at: 41_000, observer: "proxy" }),
    ])
      .when(e.notFound("t", "w2", "a2", { at: 42_000, observer: "proxy" }))
      .then([
        {
          type: "TaskIndeterminate",
          workerId: "w2",
          serverTaskId: "a2",
          lastState: "TASK_STATE_INPUT_REQUIRED",
          attempt: 2,
        },
        { type: "RedispatchCommanded", targetWorkerId: "w3", resumeState: "TASK_STATE_INPUT_REQUIRED", attempt: 3 },
      ]);
  });

  it("merges the last state over observers per server task: a late report about attempt 1 never sets attempt 2's resume state", () => {
    const e = events();
    fixedInDefault2([
      ...mesh(e),
      e.dispatch("t", "w1", { at: 100 }),
      e.state("t", "w1", "a1", "working", { at: 110 }),
      e.notFound("t", "w1", "a1", { at: 120 }),
      e.dispatch("t", "w3", { at: 130, attempt: 2, messageId: "t-m2" }),
      e.state("t", "w3", "a2", "input-required", { at: 140, observer: "proxy" }),
      // the orchestrator reports what it saw of attempt 1, later
      e.state("t", "w1", "a1", "working", { at: 150, observer: "orchestrator" }),
    ])
      .when(e.notFound("t", "w3", "a2", { at: 160 }))
      .then([
        {
          type: "TaskIndeterminate",
          workerId: "w3",
          serverTaskId: "a2",
          lastState: "TASK_STATE_INPUT_REQUIRED",
          lastObserver: "proxy",
        },
        { type: "ReconciliationBlocked", lastState: "TASK_STATE_INPUT_REQUIRED" },
      ]);
  });

  it("identifies a task by (workerId, serverTaskId): the same id ended on another worker is no purge", () => {
    const e = events();
    fixedInDefault2([
      ...mesh(e),
      e.dispatch("t", "w1", { at: 100 }),
      e.state("t", "w1", "task-1", "completed", { at: 110 }),
      e.dispatch("t", "w2", { at: 120, attempt: 2, messageId: "t-m2" }),
      e.state("t", "w2", "task-1", "working", { at: 130 }),
    ])
      .when(e.notFound("t", "w2", "task-1", { at: 140 }))
      .then([
        { type: "TaskIndeterminate", workerId: "w2", serverTaskId: "task-1", lastState: "TASK_STATE_WORKING" },
        { type: "RedispatchCommanded", targetWorkerId: "w1", resumeState: null },
      ]);
  });

  it("yields its own decision for a TaskNotFound of a task id the correlation never saw, not another task's loss", () => {
    const e = events();
    fixedInDefault2([...mesh(e), e.dispatch("t", "w1", { at: 100 }), e.state("t", "w1", "a1", "working", { at: 110 })])
      .when(e.notFound("t", "w1", "someone-elses-task", { at: 120 }))
      .then([
        {
          type: "ContractViolation",
          kind: "UNSEEN_TASK_NOT_FOUND",
          workerId: "w1",
          serverTaskId: "someone-elses-task",
        },
      ]);
  });

  it("purges a task that ended, whatever the other attempts do (R4)", () => {
    const e = events();
    given([...mesh(e), e.dispatch("t", "w1", { at: 100 }), e.state("t", "w1", "a1", "completed", { at: 110 })])
      .when(e.notFound("t", "w1", "a1", { at: 120 }))
      .thenNothing();
  });
});

describe("default/2: trust is revoked by evidence", () => {
  it("puts a trusted worker whose parked canary was lost under verify: its later loss is indeterminate, not failed", () => {
    const e = events();
    const card = agentCard({ org: "Acme", states: lifecycle, taskStore: "durable" });
    fixedInDefault2(
      [
        e.card("w1", card, { at: 1 }),
        e.probe("w1", cardHash(card), {
          at: 2,
          corr: "probe-w1",
          states: all,
          modes: ["text/plain"],
          canaries: [{ serverTaskId: "canary", state: "input-required" }],
        }),
        e.notFound("probe-w1", "w1", "canary", { at: 50, observer: "dispatcher" }),
        e.dispatch("t", "w1", { at: 100 }),
        e.state("t", "w1", "a1", "working", { at: 110 }),
      ],
      { policy: { trustedVendors: ["Acme"] } },
    )
      .when(e.notFound("t", "w1", "a1", { at: 120 }))
      .then([
        { type: "TaskIndeterminate", workerId: "w1", reason: expect.stringContaining("under verify") },
        { type: "ReconciliationBlocked" },
      ]);
  });

  it("still fails a lost task of a trusted worker with a durable claim and no evidence against it", () => {
    const e = events();
    const card = agentCard({ org: "Acme", states: lifecycle, taskStore: "durable" });
    given(
      [
        e.card("w1", card, { at: 1 }),
        e.dispatch("t", "w1", { at: 100 }),
        e.state("t", "w1", "a1", "working", { at: 110 }),
      ],
      { policy: { trustedVendors: ["Acme"] } },
    )
      .when(e.notFound("t", "w1", "a1", { at: 120 }))
      .then([{ type: "TaskFailed", workerId: "w1", lastState: "TASK_STATE_WORKING" }]);
  });
});

describe("default/2: R6 chooses by verified capabilities per (card, skill)", () => {
  it("restarts a task lost while working only on a worker that verifies that state and completion", () => {
    const e = events();
    const card = (org: string) => agentCard({ org, states: lifecycle });
    const a = card("A");
    const b = card("B");
    fixedInDefault2([
      e.card("w-a", a, { at: 1 }),
      e.card("w-b", b, { at: 2 }),
      e.card("w-lost", card("L"), { at: 3 }),
      e.probe("w-a", cardHash(a), { at: 10, states: ["TASK_STATE_COMPLETED"], modes: ["text/plain"] }),
      e.probe("w-b", cardHash(b), {
        at: 11,
        states: ["TASK_STATE_WORKING", "TASK_STATE_COMPLETED"],
        modes: ["text/plain"],
      }),
      e.dispatch("t", "w-lost", { at: 100 }),
      e.state("t", "w-lost", "x1", "working", { at: 110 }),
    ])
      .when(e.notFound("t", "w-lost", "x1", { at: 120 }))
      .then([{ type: "TaskIndeterminate" }, { type: "RedispatchCommanded", targetWorkerId: "w-b", resumeState: null }]);
  });

  it("takes a probe of one skill as verifying nothing about another", () => {
    const e = events();
    fixedInDefault2([
      ...mesh(e, { w3Skill: "translate" }),
      e.dispatch("t", "w1", { at: 100 }),
      e.state("t", "w1", "a1", "input-required", { at: 110 }),
    ])
      .when(e.notFound("t", "w1", "a1", { at: 120 }))
      .then([
        { type: "TaskIndeterminate" },
        {
          type: "ReconciliationBlocked",
          candidates: expect.arrayContaining([
            { workerId: "w3", eligible: false, reason: expect.stringContaining("skill summarize of card") },
          ]),
        },
      ]);
  });

  it("never re-dispatches to the worker that lost the task, not even to restart it", () => {
    const e = events();
    const card = agentCard({ org: "Solo", states: lifecycle });
    fixedInDefault2([
      e.card("w1", card, { at: 1 }),
      e.probe("w1", cardHash(card), { at: 2, states: noInterrupt, modes: ["text/plain"] }),
      e.dispatch("t", "w1", { at: 100 }),
      e.state("t", "w1", "a1", "working", { at: 110 }),
    ])
      .when(e.notFound("t", "w1", "a1", { at: 120 }))
      .then([
        { type: "TaskIndeterminate" },
        {
          type: "ReconciliationBlocked",
          candidates: [{ workerId: "w1", eligible: false, reason: "lost the task: never a target under verify" }],
        },
      ]);
  });

  it("breaks ties by workerId in code-unit order", () => {
    const e = events();
    const card = (org: string) => agentCard({ org, states: lifecycle });
    const [b, a] = [card("B"), card("A")];
    given([
      e.card("w-b", b, { at: 1 }),
      e.card("W-a", a, { at: 2 }),
      e.card("w-lost", card("L"), { at: 3 }),
      e.probe("w-b", cardHash(b), { at: 10, states: all, modes: ["text/plain"] }),
      e.probe("W-a", cardHash(a), { at: 11, states: all, modes: ["text/plain"] }),
      e.dispatch("t", "w-lost", { at: 100 }),
      e.state("t", "w-lost", "x1", "input-required", { at: 110 }),
    ])
      .when(e.notFound("t", "w-lost", "x1", { at: 120 }))
      .then([{ type: "TaskIndeterminate" }, { type: "RedispatchCommanded", targetWorkerId: "W-a" }]);
  });
});

describe("default/2: skills", () => {
  it("flags a dispatch to a skill the card in force does not list, and does not judge its artifacts against defaultOutputModes", () => {
    const e = events();
    const card = agentCard({ org: "Acme", defaultOutputModes: ["text/csv"], skills: [{ id: "other" }] });
    const history = [e.card("w1", card, { at: 1 })];
    fixedInDefault2(history)
      .when(
        e.dispatch("t", "w1", { at: 10, skillId: "summarize" }),
        e.artifact("t", "w1", "s1", { at: 13, mediaTypes: ["text/plain"] }),
      )
      .then([
        {
          type: "ContractViolation",
          kind: "SKILL_NOT_ADVERTISED",
          observed: "summarize",
          allowed: ["other"],
          skillId: "summarize",
        },
      ]);
  });

  it("judges OUTPUT_MODE_NOT_VERIFIED against what the probe of the task's own skill emitted", () => {
    const e = events();
    const card = agentCard({
      org: "Acme",
      skills: [
        { id: "summarize", outputModes: ["text/plain", "application/json"] },
        { id: "extract", outputModes: ["text/plain", "application/json"] },
      ],
    });
    fixedInDefault2([
      e.card("w1", card, { at: 1 }),
      e.probe("w1", cardHash(card), { at: 2, states: noInterrupt, modes: ["text/plain"], skillId: "summarize" }),
      e.probe("w1", cardHash(card), { at: 3, states: noInterrupt, modes: ["application/json"], skillId: "extract" }),
      e.dispatch("t", "w1", { at: 10, skillId: "summarize" }),
    ])
      .when(e.artifact("t", "w1", "s1", { at: 13, mediaTypes: ["application/json"] }))
      .then([
        {
          type: "ContractViolation",
          kind: "OUTPUT_MODE_NOT_VERIFIED",
          observed: "application/json",
          allowed: ["text/plain"],
          skillId: "summarize",
        },
      ]);
  });
});

describe("default/2: R3 compares outputs as real traffic carries them", () => {
  it("compares the unnamed artifacts of two attempts by position although their ids differ", () => {
    const e = events();
    fixedInDefault2([
      ...mesh(e),
      e.dispatch("t", "w1", { at: 100 }),
      e.artifact("t", "w1", "a1", { at: 110, name: null, artifactId: "x-7f3", mediaTypes: ["application/json"] }),
      e.state("t", "w1", "a1", "completed", { at: 111 }),
    ])
      .when(
        e.dispatch("t", "w1", { at: 200, attempt: 2, messageId: "t-m2" }),
        e.artifact("t", "w1", "a2", { at: 210, name: null, artifactId: "y-19c", mediaTypes: ["text/plain"] }),
      )
      .then([
        { type: "ContractViolation", kind: "OUTPUT_MODE_NOT_ADVERTISED", observed: "text/plain" },
        {
          type: "ContractViolation",
          kind: "DIVERGENT_ARTIFACTS",
          output: "#1",
          attempts: [1, 2],
          observed: "text/plain",
          allowed: ["application/json"],
        },
      ]);
  });

  it("judges the streamed chunks of one artifact as one artifact, once its last chunk arrived", () => {
    const e = events();
    const card = agentCard({
      org: "Acme",
      skills: [{ id: "summarize", outputModes: ["text/plain", "application/json"] }],
    });
    fixedInDefault2([
      e.card("w1", card, { at: 1 }),
      e.dispatch("t", "w1", { at: 100 }),
      e.artifact("t", "w1", "a1", { at: 110, mediaTypes: ["text/plain", "application/json"] }),
      e.state("t", "w1", "a1", "completed", { at: 111 }),
      e.dispatch("t", "w1", { at: 200, attempt: 2, messageId: "t-m2" }),
    ])
      .when(
        e.artifact("t", "w1", "a2", { at: 210, artifactId: "s", mediaTypes: ["text/plain"], lastChunk: false }),
        e.artifact("t", "w1", "a2", {
          at: 211,
          artifactId: "s",
          mediaTypes: ["application/json"],
          append: true,
          lastChunk: true,
        }),
      )
      .thenNothing();
  });

  it("still reports a streamed artifact that diverges, once, when its task ends without a last chunk", () => {
    const e = events();
    const card = agentCard({
      org: "Acme",
      skills: [{ id: "summarize", outputModes: ["text/plain", "application/json"] }],
    });
    given([
      e.card("w1", card, { at: 1 }),
      e.dispatch("t", "w1", { at: 100 }),
      e.artifact("t", "w1", "a1", { at: 110, mediaTypes: ["application/json"] }),
      e.dispatch("t", "w1", { at: 200, attempt: 2, messageId: "t-m2" }),
      e.artifact("t", "w1", "a2", { at: 210, artifactId: "s", mediaTypes: ["text/plain"], lastChunk: false }),
    ])
      .when(
        e.state("t", "w1", "a2", "completed", { at: 220, observer: "proxy" }),
        e.state("t", "w1", "a2", "completed", { at: 221, observer: "orchestrator" }),
      )
      .then([{ type: "ContractViolation", kind: "DIVERGENT_ARTIFACTS", output: "summary", attempts: [1, 2] }]);
  });

  it("reports a divergence once however many observers report the artifact", () => {
    const e = events();
    given([
      ...mesh(e),
      e.dispatch("t", "w1", { at: 100 }),
      e.artifact("t", "w1", "a1", { at: 110, mediaTypes: ["application/json"] }),
      e.dispatch("t", "w2", { at: 200, attempt: 2, messageId: "t-m2" }),
    ])
      .when(
        e.artifact("t", "w2", "a2", { at: 210, mediaTypes: ["text/plain"], observer: "proxy" }),
        e.artifact("t", "w2", "a2", { at: 212, mediaTypes: ["text/plain"], observer: "orchestrator" }),
      )
      .then([{ type: "ContractViolation", kind: "DIVERGENT_ARTIFACTS", attempts: [1, 2] }]);
  });
});

describe("default/2: indeterminate is not forever", () => {
  it("reconciles a correlation whose lost task is seen again in a terminal state", () => {
    const e = events();
    const story = [
      ...mesh(e, { w3Skill: "translate" }),
      e.dispatch("t", "w1", { at: 100 }),
      e.state("t", "w1", "a1", "input-required", { at: 110 }),
      e.notFound("t", "w1", "a1", { at: 120 }),
    ];
    fixedInDefault2(story)
      .when(e.state("t", "w1", "a1", "completed", { at: 130, observer: "proxy" }))
      .then([
        {
          type: "TaskReconciled",
          workerId: "w1",
          serverTaskId: "a1",
          state: "TASK_STATE_COMPLETED",
          attempt: 1,
          reason: expect.stringContaining("reappeared"),
        },
      ]);
  });
});

describe("default/2: STATE_NOT_VERIFIED only for the states reconciliation relies on", () => {
  it("does not flag an advertised terminal failure a probe never reached", () => {
    const e = events();
    fixedInDefault2([...mesh(e), e.dispatch("t", "w2", { at: 100 })])
      .when(e.state("t", "w2", "a1", "failed", { at: 110 }))
      .thenNothing();
  });

  it("flags an advertised interrupted state the probe of the task's skill did not verify", () => {
    const e = events();
    given([...mesh(e), e.dispatch("t", "w2", { at: 100 })])
      .when(e.state("t", "w2", "a1", "input-required", { at: 110 }))
      .then([
        {
          type: "ContractViolation",
          kind: "STATE_NOT_VERIFIED",
          observed: "TASK_STATE_INPUT_REQUIRED",
          skillId: "summarize",
        },
      ]);
  });
});

describe("default/2: blocked correlations recover when a worker becomes eligible", () => {
  const story = (e: ReturnType<typeof events>) => {
    // the card mesh() gives w3
    const w3 = agentCard({
      org: "Three",
      states: lifecycle,
      taskStore: "durable",
      skills: [
        { id: "summarize", outputModes: ["text/plain"] },
        { id: "translate", outputModes: ["text/plain"] },
      ],
    });
    return {
      w3,
      blocked: [
        ...mesh(e, { w3Skill: "translate" }),
        e.dispatch("t", "w1", { at: 100 }),
        e.state("t", "w1", "a1", "input-required", { at: 110 }),
        e.notFound("t", "w1", "a1", { at: 120 }),
      ],
      probe: e.probe("w3", cardHash(w3), {
        at: 500,
        states: all,
        modes: ["text/plain"],
        skillId: "summarize",
        corr: "probe-w3",
      }),
    };
  };

  it("re-dispatches a blocked correlation, once, when a probe verifies the state it waits for", () => {
    const e = events();
    const s = story(e);
    const decisions = given(s.blocked).when(
      s.probe,
      e.probe("w3", cardHash(s.w3), {
        at: 600,
        states: all,
        modes: ["text/plain"],
        skillId: "summarize",
        corr: "probe-w3",
      }),
    ).all;
    const recovered = decisions.filter((d) => d.correlationId === "t" && d.type === "RedispatchCommanded");
    expect(recovered).toMatchObject([
      {
        targetWorkerId: "w3",
        resumeState: "TASK_STATE_INPUT_REQUIRED",
        attempt: 2,
        decidedAt: 500,
        decisionId: `${s.probe.eventId}:RedispatchCommanded:t`,
      },
    ]);
    expect(recovered[0]?.causeEventIds).toEqual([s.probe.eventId, s.blocked[s.blocked.length - 1]!.eventId]);
  });

  it("recovers the same in a later batch that only re-examines, as a reconciler on another partition does", () => {
    const e = events();
    const s = story(e);
    const decider = createDecider(defaultRuleSet);
    const policy = { trustedVendors: [] };
    const table = new CapabilityTable();
    const first = foldBatch({ decider, policy, capabilities: table, stateOf: () => undefined }, s.blocked);
    applyCapabilityUpdates(table, first);
    // the probe lands on another partition: this one only learns of its snapshot
    const probe = foldBatch({ decider, policy, capabilities: table, stateOf: () => undefined }, [s.probe]);
    applyCapabilityUpdates(table, probe);
    const blocked = [...first.states].filter(([, st]) => decider.isBlocked(st)).map(([id]) => id);
    const later = foldBatch(
      { decider, policy, capabilities: table, stateOf: (id) => first.states.get(id), blocked, recheck: true },
      [],
    );
    const whole = replay([...s.blocked, s.probe], defaultRuleSet, { policy });
    expect(later.decisions).toEqual(
      whole.filter((d) => d.type === "RedispatchCommanded" && d.correlationId === "t" && d.decidedAt === 500),
    );
    expect(later.decisions).toHaveLength(1);
  });

  it("re-dispatches at once a correlation that blocks when the table already holds the later probe that rescues it", () => {
    const e = events();
    const s = story(e);
    const decider = createDecider(defaultRuleSet);
    const policy = { trustedVendors: [] };
    const table = new CapabilityTable();
    // Another partition's probe (or one from an observer whose clock runs ahead) was processed first.
    applyCapabilityUpdates(
      table,
      foldBatch(
        { decider, policy, capabilities: table, stateOf: () => undefined },
        s.blocked.filter((o) => o.correlationId !== "t"),
      ),
    );
    applyCapabilityUpdates(
      table,
      foldBatch({ decider, policy, capabilities: table, stateOf: () => undefined }, [s.probe]),
    );
    const out = foldBatch(
      { decider, policy, capabilities: table, stateOf: () => undefined },
      s.blocked.filter((o) => o.correlationId === "t"),
    );
    const whole = replay([...s.blocked, s.probe], defaultRuleSet, { policy }).filter((d) => d.correlationId === "t");
    expect(out.decisions).toEqual(whole);
    expect(out.decisions.map((d) => d.type)).toEqual([
      "ContractViolation",
      "TaskIndeterminate",
      "ReconciliationBlocked",
      "RedispatchCommanded",
    ]);
    expect(decider.isBlocked(out.states.get("t")!)).toBe(false);
  });

  it("decides the same whichever of the loss and its rescuing probe comes first in the log", () => {
    const e = events();
    const s = story(e);
    const policy = { trustedVendors: [] };
    const lossFirst = replay([...s.blocked, s.probe], defaultRuleSet, { policy });
    const probeFirst = replay([...s.blocked.slice(0, -1), s.probe, s.blocked[s.blocked.length - 1]!], defaultRuleSet, {
      policy,
    });
    const sorted = (ds: typeof lossFirst) => ds.map((d) => d.decisionId).sort();
    expect(sorted(probeFirst)).toEqual(sorted(lossFirst));
    expect(probeFirst.filter((d) => d.type === "RedispatchCommanded" && d.correlationId === "t")).toHaveLength(1);
  });
});
