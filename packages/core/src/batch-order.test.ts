/** Folding in the order the reconciler read: each batch sees exactly the snapshots its reads reach. */
import { describe, expect, it } from "vitest";
import { agentCard, events } from "../test/builders.ts";
import { BatchOrderFold, policyRead, SourcedCapabilities } from "./batch-order.ts";
import { cardHash } from "./card-hash.ts";
import { replay } from "./replay.ts";
import { CapabilityTable } from "./capabilities.ts";
import { foldBatch } from "./fold.ts";
import { createDecider } from "./decider.ts";
import { defaultRuleSetV2 } from "./rules/rule-sets.ts";

const e = events("b-");
const derivedFrom = (workerId: string, at: number) => {
  const out = foldBatch(
    {
      decider: createDecider(defaultRuleSetV2),
      policy: { trustedVendors: [] },
      capabilities: new CapabilityTable(),
      stateOf: () => undefined,
    },
    [e.card(workerId, agentCard({ org: `Org-${workerId}` }), { at })],
  );
  return { capabilityUpdates: out.capabilityUpdates, cards: out.cards };
};

describe("SourcedCapabilities", () => {
  it("shows a batch the snapshots of the batches its reads reach, and none beyond", () => {
    const sourced = new SourcedCapabilities();
    sourced.add(derivedFrom("w1", 10), { partition: 0, offset: 4 });
    sourced.add(derivedFrom("w2", 20), { partition: 1, offset: 7 });
    sourced.add(derivedFrom("w3", 30), { partition: 0, offset: 9 });
    expect(sourced.viewFor([]).workers()).toEqual([]);
    expect(sourced.viewFor([{ partition: 0, offset: 5 }]).workers()).toEqual(["w1"]);
    expect(
      sourced
        .viewFor([
          { partition: 0, offset: 10 },
          { partition: 1, offset: 7 },
        ])
        .workers(),
    ).toEqual(["w1", "w3"]);
    expect(
      sourced
        .viewFor([
          { partition: 0, offset: 10 },
          { partition: 1, offset: 8 },
        ])
        .workers(),
    ).toEqual(["w1", "w2", "w3"]);
    expect(sourced.all().workers()).toEqual(["w1", "w2", "w3"]);
    // The card text travels with the snapshot it came with.
    const hash = sourced.all().asOf("w2", 20)?.cardHash as string;
    expect(sourced.viewFor([{ partition: 1, offset: 8 }]).card(hash)).toBeDefined();
    expect(sourced.viewFor([{ partition: 0, offset: 10 }]).card(hash)).toBeUndefined();
  });

  it("rebuilds a view when snapshots were added since under the same reads", () => {
    const sourced = new SourcedCapabilities();
    const reads = [{ partition: 0, offset: 100 }];
    expect(sourced.viewFor(reads).workers()).toEqual([]);
    sourced.add(derivedFrom("w1", 10), { partition: 0, offset: 4 });
    expect(sourced.viewFor(reads).workers()).toEqual(["w1"]);
  });
});

describe("policyRead", () => {
  it("keeps the recorded versions a batch had read, and a fixed policy as it is", () => {
    const history = {
      versions: [
        { version: 1, validFrom: 0, trustedVendors: [] },
        { version: 2, validFrom: 50, trustedVendors: ["Acme"] },
      ],
    };
    expect(policyRead(history, 1)).toEqual({ versions: [history.versions[0]] });
    expect(policyRead(history, 2)).toEqual(history);
    expect(policyRead(history, 0)).toEqual({ versions: [] });
    expect(policyRead({ trustedVendors: ["Acme"] }, 0)).toEqual({ trustedVendors: ["Acme"] });
  });
});

describe("BatchOrderFold", () => {
  const lifecycle = ["submitted", "working", "input-required", "completed", "failed"];
  const o = events("f-");
  const card = agentCard({ org: "Org", states: lifecycle, taskStore: "durable" });
  const task = [o.dispatch("t", "w", { at: 1_000 }), o.state("t", "w", "t-1", "input-required", { at: 2_000 })];
  const governing = [
    o.card("w", card, { at: 10 }),
    o.probe("w", cardHash(card), {
      at: 20,
      states: ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED"],
      modes: ["text/plain"],
    }),
  ];
  const kinds = (ds: readonly { type: string; correlationId: string }[]) =>
    ds.map((d) => `${d.correlationId}:${d.type}`);

  it("folds each recorded batch against the table it read: a task read before its worker's card is judged without it, as live", () => {
    const fold = new BatchOrderFold(createDecider(defaultRuleSetV2), { trustedVendors: [] });
    // Live: partition 1's batch (the task) first, with nothing in its table; then partition 0's (the card).
    const first = fold.fold(task, {
      partition: 1,
      fromOffset: 0,
      toOffset: 1,
      recheck: false,
      capabilityReads: [],
      policyVersions: 0,
    });
    const second = fold.fold(governing, {
      partition: 0,
      fromOffset: 0,
      toOffset: 1,
      recheck: false,
      capabilityReads: [],
      policyVersions: 0,
    });
    expect(kinds([...first.decisions, ...second.decisions])).toEqual([
      "probe-w:ProbeRequested",
      "probe-w:CapabilitiesVerified",
    ]);
    // By time the card comes first and the state is a violation: the order the reconciler read is what decides.
    expect(kinds(replay([...governing, ...task], defaultRuleSetV2))).toContain("t:ContractViolation");
  });

  it("lets a later batch see the earlier batch its reads reach, and folds what follows the batches against everything", () => {
    const fold = new BatchOrderFold(createDecider(defaultRuleSetV2), { trustedVendors: [] });
    fold.fold(governing, {
      partition: 0,
      fromOffset: 0,
      toOffset: 1,
      recheck: false,
      capabilityReads: [],
      policyVersions: 0,
    });
    const reached = fold.fold(task, {
      partition: 1,
      fromOffset: 0,
      toOffset: 1,
      recheck: false,
      capabilityReads: [{ partition: 0, offset: 2 }],
      policyVersions: 0,
    });
    expect(kinds(reached.decisions)).toEqual(["t:ContractViolation"]);
    const after = fold.fold([o.state("t", "w", "t-1", "auth-required", { at: 3_000 })]);
    expect(kinds(after.decisions)).toEqual(["t:ContractViolation"]);
  });
});
