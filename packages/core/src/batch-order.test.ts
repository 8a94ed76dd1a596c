/** SourcedCapabilities: a batch sees exactly the snapshots and cards its reads reach, in the order derived. */
import { describe, expect, it } from "vitest";
import { agentCard, events } from "../test/builders.ts";
import { policyRead, SourcedCapabilities } from "./batch-order.ts";
import { CapabilityTable } from "./capabilities.ts";
import { foldBatch } from "./fold.ts";
import { createDecider } from "./decider.ts";
import { defaultRuleSet } from "./rules/rule-sets.ts";

const e = events("b-");
const derivedFrom = (workerId: string, at: number) => {
  const out = foldBatch({ decider: createDecider(defaultRuleSet), policy: { trustedVendors: [] }, capabilities: new CapabilityTable(), stateOf: () => undefined }, [e.card(workerId, agentCard({ org: `Org-${workerId}` }), { at })]);
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
    expect(sourced.viewFor([{ partition: 0, offset: 10 }, { partition: 1, offset: 7 }]).workers()).toEqual(["w1", "w3"]);
    expect(sourced.viewFor([{ partition: 0, offset: 10 }, { partition: 1, offset: 8 }]).workers()).toEqual(["w1", "w2", "w3"]);
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
    const history = { versions: [{ version: 1, validFrom: 0, trustedVendors: [] }, { version: 2, validFrom: 50, trustedVendors: ["Acme"] }] };
    expect(policyRead(history, 1)).toEqual({ versions: [history.versions[0]] });
    expect(policyRead(history, 2)).toEqual(history);
    expect(policyRead(history, 0)).toEqual({ versions: [] });
    expect(policyRead({ trustedVendors: ["Acme"] }, 0)).toEqual({ trustedVendors: ["Acme"] });
  });
});
