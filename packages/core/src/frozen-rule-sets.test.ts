/**
 * Shipped rule-set versions are frozen: the same log gets the same decisions from them forever, so a
 * replay of recorded history reproduces what was decided live. Each version is pinned here by a digest
 * of its decisions over a generated log (cards and probes of five workers, card refreshes each probed,
 * a trusted vendor, thousands of interleaved correlations with losses in input-required, re-dispatches,
 * failures and purges). An edit to shared code that changes what a frozen version decides fails this
 * test; a new behaviour belongs in a new version. The digests change only with the generator, and then
 * all at once.
 */
import { createHash } from "node:crypto";
import type { Observation } from "@a2a-ledger/schemas";
import { describe, expect, it } from "vitest";
import { generateLog } from "../test/generated-log.ts";
import { canonicalize } from "./canonical-json.ts";
import { parseObservation } from "./ingest-json.ts";
import { replayLog } from "./replay.ts";
import { ruleSets } from "./rules/rule-sets.ts";

/** Per version: the number of decisions and the SHA-256 of their RFC 8785 texts, one a line, in the order decided. */
const pinned: Readonly<Record<string, string>> = {
  // default/4 is still being built (rule-sets.ts): pinned all the same, so that a change to it is deliberate.
  "default/4": "2774 6b3f73fc3b724fb78bca94f0f095667b2381ef9641857f429954d3804d78634f",
  "default/3": "2774 d8b5747090463468badf43dfe954dc23f7b1ff3e4b17e540e9b884e532050def",
  "default/2": "2697 18431a8b8737dcbc67958de75dc141cdaa49d62305ce71831568aa8e0e488c08",
  "restart-from-scratch/2": "2697 474ace2e31055036f3dce657a01661779b5f495e145b75e8a271b6873f36b9b1",
  "default/1": "5032 dffd7483d8b04735c25538f51fa4624d1a3c911fcdfb116b3795a8e2836652ab",
  "restart-from-scratch/1": "5032 fb3051460a5b6385a646928e2acd8f9c6da1a8d7d03dfc39857d2364bee70b7d",
};

function parse(line: string): Observation {
  const result = parseObservation(JSON.parse(line));
  if (!result.ok) throw new Error(`the generator produced an invalid observation: ${JSON.stringify(result.issues)}`);
  return result.observation;
}

const log = generateLog(30_000, { refreshEvery: 3_000, probeRefreshes: true }).map(parse);
const policy = { trustedVendors: ["Vendor0"] };

describe("frozen rule-set versions", () => {
  it("pins every shipped version", () => {
    expect(Object.keys(pinned).sort()).toEqual(Object.keys(ruleSets).sort());
  });

  for (const [version, ruleSet] of Object.entries(ruleSets)) {
    it(`${version} decides the generated log as it always has`, () => {
      const { decisions, rejected } = replayLog(log, ruleSet, { policy });
      expect(rejected).toEqual([]);
      // The log is no trivial one for this version: it re-dispatches and it reports violations.
      const types = new Set(decisions.map((d) => d.type));
      expect(decisions.length).toBeGreaterThan(1_000);
      expect(types.has("TaskIndeterminate") && types.has("ContractViolation")).toBe(true);
      const digest = createHash("sha256")
        .update(decisions.map((d) => canonicalize(d)).join("\n"))
        .digest("hex");
      expect(`${decisions.length} ${digest}`).toBe(pinned[version]);
    });
  }
});
