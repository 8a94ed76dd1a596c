/**
 * Scenario 5: reconcilers scaled 1 → 3 → 1 under load, one of the new instances killed (SIGKILL) while
 * it restores its partitions' state from the changelog, the last one stopped (SIGTERM). The changelog is
 * prefilled with many correlations so that a restore takes seconds. Every partition ends with one owner
 * that restored it whole.
 */
import { describe, expect, it } from "vitest";
import { CapabilityTable, createDecider, defaultRuleSet, foldBatch, parseObservation } from "@a2a-ledger/core";
import { correlationPartitions, createKafka, logLevel } from "@a2a-ledger/kafka";
import type { Observation } from "@a2a-ledger/schemas";
import { eventually } from "./cluster.ts";
import type { Ledger } from "./mesh/ledger.ts";
import { expectNothingLost, runScenario } from "./scenario.ts";
import { clusterSuite, sleep } from "./suite.ts";

const suite = clusterSuite();
const prefillPerPartition = Number(process.env.FAULT_PREFILL_PER_PARTITION ?? 40_000);
/** How many new instances may be started (and killed) until one kill lands inside its restore. */
const killAttempts = 3;

/** A real correlation state as the reconciler serializes it, written under many other keys. */
async function prefillChangelog(ledger: Ledger): Promise<void> {
  const decider = createDecider(defaultRuleSet);
  const observation = parseObservation({
    type: "TaskDispatched",
    eventId: "prefill-e1",
    correlationId: "prefill",
    // Now, as the load's events are: a state from the epoch would be past every retention horizon, and the
    // first batches would sweep the whole prefill out (with a CorrelationExpired the replay oracle cannot know).
    occurredAt: Date.now(),
    observer: "orchestrator",
    workerId: "w-elsewhere",
    skillId: "answer",
    messageId: "m",
    acceptedOutputModes: ["text/plain"],
  });
  if (!observation.ok) throw new Error(JSON.stringify(observation.issues));
  const folded = foldBatch(
    { decider, policy: { trustedVendors: [] }, capabilities: new CapabilityTable(), stateOf: () => undefined },
    [observation.observation as Observation],
  );
  const value = Buffer.from(decider.serialize(folded.states.get("prefill") as never));
  const producer = createKafka({
    brokers: ledger.endpoints.brokers,
    clientId: "fault-prefill",
    logLevel: logLevel.NOTHING,
  }).producer({ idempotent: true });
  await producer.connect();
  try {
    for (let p = 0; p < correlationPartitions; p++) {
      for (let i = 0; i < prefillPerPartition; i += 5_000) {
        const messages = Array.from({ length: Math.min(5_000, prefillPerPartition - i) }, (_, k) => ({
          key: `prefill-${p}-${i + k}`,
          value,
          partition: p,
        }));
        await producer.send({ topic: ledger.topics.changelog, acks: -1, messages });
      }
    }
  } finally {
    await producer.disconnect();
  }
}

const logged = (output: string, msg: string) => output.split("\n").filter((l) => l.includes(`"msg":"${msg}"`)).length;

describe("scenario 5: a reconciler killed during its restore, reconcilers scaled 1 → 3 → 1", () => {
  it("loses nothing and decides exactly what the replay decides", async () => {
    const { cluster } = suite;
    let killedDuringRestore = false;
    const run = await runScenario(cluster, {
      reconcilers: ["r1"],
      before: prefillChangelog,
      at: 0.2,
      inject: async (ledger) => {
        const [r2, r3] = await Promise.all([ledger.startReconciler("r2"), ledger.startReconciler("r3")]);
        // r2 restores once the rebalance gives it partitions: kill it then, before it says it restored.
        // A restore can finish before the kill on a fast machine; then another new instance is started
        // and killed the same way (the group goes on at three members), a bounded number of times.
        let victim = { id: "r2", service: r2 };
        for (let attempt = 1; ; attempt++) {
          const output = () => victim.service.output();
          await eventually(
            `${victim.id} to begin a restore`,
            async () => (logged(output(), "restoring state from the changelog") > 0 ? true : undefined),
            120_000,
            20,
          );
          killedDuringRestore = logged(output(), "state restored from the changelog") === 0;
          await ledger.killReconciler(victim.id);
          console.log(
            `[faults] SIGKILL ${victim.id} during its changelog restore (${killedDuringRestore ? "before" : "after"} it finished)`,
          );
          if (killedDuringRestore || attempt === killAttempts) break;
          const id = `r2-${attempt + 1}`;
          victim = { id, service: await ledger.startReconciler(id) };
        }
        await sleep(10_000);
        await ledger.stopReconciler("r3");
        console.log(
          `[faults] r3 stopped; r1 alone again (r3 restored ${logged(r3.output(), "state restored from the changelog")} time(s))`,
        );
      },
    });
    expect(killedDuringRestore, "the kill landed during the restore").toBe(true);
    await expectNothingLost(run);
  });
});
