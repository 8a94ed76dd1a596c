import type { TaskState } from "@a2a-ledger/schemas";
import { describe, expect, it } from "vitest";
import { agentCard, events } from "../test/builders.ts";
import { given } from "../test/given.ts";
import { cardHash } from "./card-hash.ts";
import {
  nextPolicyVersion,
  noRecordedPolicy,
  policyAt,
  type PolicyVersion,
  withPolicyVersion,
} from "./policy-history.ts";

const v = (version: number, validFrom: number, trustedVendors: string[] = []): PolicyVersion => ({
  version,
  validFrom,
  trustedVendors,
});

describe("policyAt: the version in force at an event's time", () => {
  it("is version 0, trusting no vendor, before any version was recorded", () => {
    // given no recorded version / when asked at any time / then version 0, nobody trusted
    expect(policyAt([], 1_000)).toBe(noRecordedPolicy);
    expect(noRecordedPolicy).toMatchObject({ version: 0, trustedVendors: [] });
  });

  it("is version 0 for an event before the first version's validFrom", () => {
    expect(policyAt([v(1, 100, ["Acme"])], 99).version).toBe(0);
  });

  it("takes a version for an event exactly at its validFrom", () => {
    expect(policyAt([v(1, 0), v(2, 100, ["Acme"])], 100)).toMatchObject({ version: 2, trustedVendors: ["Acme"] });
    expect(policyAt([v(1, 0), v(2, 100, ["Acme"])], 99).version).toBe(1);
  });

  it("does not depend on the order the versions arrived in", () => {
    const history = [v(1, 0), v(2, 100), v(3, 200)];
    const shuffled = [history[2]!, history[0]!, history[1]!];
    for (const t of [-5, 0, 50, 100, 150, 200, 10_000]) expect(policyAt(shuffled, t)).toBe(policyAt(history, t));
    expect(policyAt(shuffled, 150).version).toBe(2);
  });

  it("lets a higher version scheduled earlier override a lower one from its own validFrom on", () => {
    // given v1 scheduled at 200 and then v2 written for 100 / when an event at 150 or 250 / then v2
    const history = [v(1, 200, ["Old"]), v(2, 100, ["New"])];
    expect(policyAt(history, 99).version).toBe(0);
    expect(policyAt(history, 150).version).toBe(2);
    expect(policyAt(history, 250).version).toBe(2);
  });

  it("reads a second record of one version as the one compaction keeps: the last", () => {
    const history = withPolicyVersion(
      withPolicyVersion(withPolicyVersion([], v(1, 0, ["A"])), v(2, 100)),
      v(1, 0, ["B"]),
    );
    expect(history.map((p) => [p.version, p.trustedVendors])).toEqual([
      [1, ["B"]],
      [2, []],
    ]);
  });

  it("numbers the next version one above the highest recorded, whatever the order", () => {
    expect(nextPolicyVersion([])).toBe(1);
    expect(nextPolicyVersion([v(3, 0), v(1, 0), v(2, 0)])).toBe(4);
  });
});

describe("the fold judges each event by the policy in force at its time", () => {
  const lifecycle = ["submitted", "working", "input-required", "completed", "failed", "canceled"];
  const verified: TaskState[] = [
    "TASK_STATE_SUBMITTED",
    "TASK_STATE_WORKING",
    "TASK_STATE_INPUT_REQUIRED",
    "TASK_STATE_COMPLETED",
  ];
  const acme = agentCard({ org: "Acme", states: lifecycle, taskStore: "durable" });

  it("fails a loss after Acme became trusted and keeps a loss before it indeterminate, each naming its version", () => {
    // given Acme's durable card, version 1 trusting nobody from 0 and version 2 trusting Acme from 115
    const e = events();
    const policy = { versions: [v(2, 115, ["Acme"]), v(1, 0)] };
    const run = given(
      [
        e.card("w1", acme, { at: 1 }),
        e.dispatch("t1", "w1", { at: 100 }),
        e.state("t1", "w1", "a1", "working", { at: 101 }),
        e.dispatch("t2", "w1", { at: 102 }),
        e.state("t2", "w1", "a2", "working", { at: 103 }),
      ],
      { policy },
    );
    // when t1 is lost just before 115 and t2 exactly at 115
    const before = run.when(e.notFound("t1", "w1", "a1", { at: 114 }));
    const at = run.when(e.notFound("t2", "w1", "a2", { at: 115 }));
    // then the first is judged under verify (version 1), the second under trust (version 2)
    before.then([
      { type: "TaskIndeterminate", policyVersion: 1 },
      { type: "ReconciliationBlocked", policyVersion: 1 },
    ]);
    at.then([{ type: "TaskFailed", workerId: "w1", policyVersion: 2 }]);
    // and the card fetch at 1 (version 1: nobody trusted) asked for a probe under verify
    expect(at.all.find((d) => d.type === "ProbeRequested")).toMatchObject({ policyVersion: 1 });
  });

  it("names version 0 for an event before any recorded version, and no version for a fixed vendor list", () => {
    const e = events();
    const history = [e.card("w1", acme, { at: 1 })];
    expect(
      given(history, { policy: { versions: [v(1, 50, ["Acme"])] } })
        .when()
        .all.map((d) => d.policyVersion),
    ).toEqual([0]);
    expect(
      given(history, { policy: { trustedVendors: [] } })
        .when()
        .all.map((d) => d.policyVersion),
    ).toEqual([null]);
  });

  it("names the version in force at a re-examination's own time on the re-dispatch it finds", () => {
    // given a loss blocked for want of a worker verifying input-required, under version 1
    const e = events();
    const other = agentCard({ org: "Other", states: lifecycle });
    const policy = { versions: [v(1, 0), v(2, 300)] };
    const run = given(
      [
        e.card("w1", acme, { at: 1 }),
        e.dispatch("t", "w1", { at: 100 }),
        e.state("t", "w1", "a1", "input-required", { at: 110 }),
        e.notFound("t", "w1", "a1", { at: 120 }),
        e.card("w2", other, { at: 400 }),
      ],
      { policy },
    );
    // when a probe at 500 (version 2 in force) verifies w2
    const probe = e.probe("w2", cardHash(other), {
      at: 500,
      corr: "probe-w2",
      states: verified,
      modes: ["text/plain"],
    });
    const redispatch = run.when(probe).all.find((d) => d.type === "RedispatchCommanded");
    // then the re-dispatch (caused by the snapshot at 500) names version 2
    expect(redispatch).toMatchObject({ targetWorkerId: "w2", policyVersion: 2 });
  });
});
