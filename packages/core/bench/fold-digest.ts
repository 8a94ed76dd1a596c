/**
 * Exactness check (not a test): digests of everything the one fold (`foldBatch`) produces over the
 * generated log, for default/4, default/3 and default/2 — so a change made for speed can be shown to
 * change no decision, capability update, card, origin or state.
 *   npm run bench:digest -w @a2a-ledger/core            (OBSERVATIONS=300000,1000000 by default)
 * Per rule set, three ways to fold the log:
 * - `one-batch`: the whole log in one fold, as replay runs it;
 * - `batches`: batches of 2,000, states carried between them through `stateOf` (copied, not updated in
 *   place), blocked correlations carried and re-examined when the table changed, as the reconciler does;
 * - `retained`: batches of 2,000 through a PartitionLedger's pending fold and commit, with a short
 *   retention and a fallback for every skill, so expiries and fallbacks are exercised too.
 * Every digest is a sha256 of the JSON of each item in fold order; final states are digested in
 * correlation id order through the rule set's codec (`Decider.serialize`).
 */
import { createHash } from "node:crypto";
import type { Observation } from "@a2a-ledger/schemas";
import { CapabilityTable } from "../src/capabilities.ts";
import { createDecider, type Decider, type LedgerState } from "../src/decider.ts";
import { applyCapabilityUpdates, type FoldOutcome, foldBatch } from "../src/fold.ts";
import { parseObservation } from "../src/ingest-json.ts";
import { PartitionLedger } from "../src/partition-ledger.ts";
import type { PolicyConfig } from "../src/policy.ts";
import type { RuleSet } from "../src/rule-set.ts";
import { defaultRuleSetV2, defaultRuleSetV3, defaultRuleSetV4 } from "../src/rules/rule-sets.ts";
import { generateLog } from "../test/generated-log.ts";

const sizes = (process.env["OBSERVATIONS"] ?? "300000,1000000").split(",").map(Number);
const batchSize = 2_000;
const policy: PolicyConfig = { trustedVendors: ["Vendor0"] };
const retainedPolicy: PolicyConfig = { trustedVendors: ["Vendor0"], fallbacks: [{ skillId: "*", afterMs: 600 }] };
const retention = { finishedMs: 60_000, staleMs: 120_000 };

/** The digests of one way of folding the log. */
class Digest {
  private readonly parts = new Map<string, ReturnType<typeof createHash>>();
  private readonly counts = new Map<string, number>();
  add(part: string, value: unknown): void {
    let hash = this.parts.get(part);
    if (hash === undefined) {
      hash = createHash("sha256");
      this.parts.set(part, hash);
    }
    hash.update(typeof value === "string" ? value : JSON.stringify(value));
    hash.update("\n");
    this.counts.set(part, (this.counts.get(part) ?? 0) + 1);
  }
  outcome(out: FoldOutcome): void {
    for (const d of out.decisions) this.add("decisions", d);
    for (const o of out.origins) this.add("origins", o);
    for (const s of out.capabilityUpdates) this.add("capabilityUpdates", s);
    for (const c of out.cards) this.add("cards", c);
    for (const r of out.rejected) this.add("rejected", { index: r.index, eventId: r.observation.eventId });
    for (const l of out.late) this.add("late", { index: l.index, eventId: l.observation.eventId });
    for (const id of [...out.expired].sort()) this.add("expired", id);
  }
  states(decider: Decider, states: Iterable<readonly [string, LedgerState]>): void {
    for (const [id, state] of [...states].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      this.add("states", `${id} ${Buffer.from(decider.serialize(state)).toString("base64")}`);
  }
  print(label: string): void {
    for (const [part, hash] of [...this.parts].sort(([a], [b]) => (a < b ? -1 : 1)))
      console.log(
        `${label.padEnd(34)} ${part.padEnd(17)} ${String(this.counts.get(part)).padStart(8)}  ${hash.digest("hex")}`,
      );
  }
}

function batchesOf(observations: readonly Observation[]): Observation[][] {
  const out: Observation[][] = [];
  for (let i = 0; i < observations.length; i += batchSize) out.push(observations.slice(i, i + batchSize));
  return out;
}

function oneBatch(ruleSet: RuleSet, observations: readonly Observation[]): Digest {
  const decider = createDecider(ruleSet);
  const digest = new Digest();
  const out = foldBatch(
    { decider, policy, capabilities: new CapabilityTable(), stateOf: () => undefined },
    observations,
  );
  digest.outcome(out);
  digest.states(decider, out.states);
  return digest;
}

function inBatches(ruleSet: RuleSet, observations: readonly Observation[]): Digest {
  const decider = createDecider(ruleSet);
  const digest = new Digest();
  const table = new CapabilityTable();
  const states = new Map<string, LedgerState>();
  const blocked = new Set<string>();
  let recheck = false;
  for (const batch of batchesOf(observations)) {
    const out = foldBatch(
      { decider, policy, capabilities: table, stateOf: (id) => states.get(id), blocked, recheck },
      batch,
    );
    digest.outcome(out);
    applyCapabilityUpdates(table, out);
    for (const [id, state] of out.states) {
      states.set(id, state);
      if (decider.isBlocked(state)) blocked.add(id);
      else blocked.delete(id);
    }
    recheck = out.capabilityUpdates.length > 0 && blocked.size > 0;
  }
  digest.states(decider, states);
  return digest;
}

function retained(ruleSet: RuleSet, observations: readonly Observation[]): Digest {
  const decider = createDecider(ruleSet);
  const digest = new Digest();
  const table = new CapabilityTable();
  const ledger = new PartitionLedger(decider, { retention, streamTime: null });
  let version = 0;
  for (const batch of batchesOf(observations)) {
    const out = ledger.foldPending(
      { policy: retainedPolicy, capabilities: table, recheck: ledger.recheckDue(version) },
      batch,
    );
    digest.outcome(out);
    applyCapabilityUpdates(table, out);
    if (out.capabilityUpdates.length > 0) version++;
    ledger.commit(out, version);
  }
  digest.states(decider, ledger.entries());
  return digest;
}

for (const size of sizes) {
  const observations = generateLog(size).map((line) => {
    const r = parseObservation(JSON.parse(line));
    if (!r.ok) throw new Error(`generator produced an invalid line: ${line}`);
    return r.observation;
  });
  for (const ruleSet of [defaultRuleSetV4, defaultRuleSetV3, defaultRuleSetV2]) {
    const label = (mode: string) => `${size} ${ruleSet.rulesVersion} ${mode}`;
    oneBatch(ruleSet, observations).print(label("one-batch"));
    inBatches(ruleSet, observations).print(label("batches"));
    retained(ruleSet, observations).print(label("retained"));
  }
}
