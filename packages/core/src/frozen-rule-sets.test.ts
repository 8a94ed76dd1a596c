/**
 * Shipped rule-set versions are frozen: the same log gets the same decisions from them forever, so a
 * replay of recorded history reproduces what was decided live. Each version is pinned here by a digest
 * of its decisions over a generated log (cards and probes of five workers, card refreshes each probed,
 * a trusted vendor, thousands of interleaved correlations with losses in input-required, re-dispatches,
 * failures and purges). An edit to shared code that changes what a frozen version decides fails this
 * test; a new behaviour belongs in a new version. The digests change only with the generator, or with a
 * field added to a decision record (its default then in every decision that has it), and then all at
 * once: the digests of the decisions without the new field must stay what they were (ReconciliationBlocked's
 * `fallbackAt` changed default/1–4's and left the others; without it each equals the pin it replaced).
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
  "default/4": "2774 6c1523dadd1448e9a6a763cf574e4b1c478befc86a2521d014d14868554e5bc6",
  "default/3": "2774 f34ab88dcccebfe0951ebd410cb8195bf97fb435f9d026f40cd8451a70efb2af",
  "default/2": "2697 b73b0c30cec5ef1766f4b0e9148c94d3a5ef640c11ba1a384a069f61eb66f329",
  "restart-from-scratch/2": "2697 474ace2e31055036f3dce657a01661779b5f495e145b75e8a271b6873f36b9b1",
  "default/1": "5032 df30d9779aeb94c1cd5f86ca65b05e3a9d194d312f3da5015f57641ecf8ce20c",
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
