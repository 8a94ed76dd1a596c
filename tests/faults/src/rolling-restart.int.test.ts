/**
 * Scenario 4: a rolling restart of all three brokers under load, as an operator upgrades a cluster: each
 * in turn stopped (SIGTERM, a controlled shutdown that hands its leaderships over), started again, and
 * the next one only once every partition is fully replicated again.
 */
import { describe, expect, it } from "vitest";
import { bounceNode, eventually, fullyReplicated, quietAdmin } from "./cluster.ts";
import { expectNothingLost, runScenario } from "./scenario.ts";
import { clusterSuite } from "./suite.ts";

const suite = clusterSuite();

describe("scenario 4: a rolling restart of every broker", () => {
  it("loses nothing and decides exactly what the replay decides", async () => {
    const { cluster } = suite;
    const bounced: { id: number; stoppedPid: number; startedPid: number }[] = [];
    const run = await runScenario(cluster, {
      at: 0.1,
      load: { correlations: 480, pauseMs: 150 },
      inject: async (ledger) => {
        const admin = quietAdmin(cluster.brokers);
        await admin.connect();
        try {
          for (const node of cluster.nodes) {
            const started = Date.now();
            const pids = await bounceNode(cluster, node);
            await eventually(
              `every partition in sync after node ${node.id} restarted`,
              async () => ((await fullyReplicated(admin, Object.values(ledger.topics))) ? true : undefined),
              240_000,
              1_000,
            );
            bounced.push({ id: node.id, ...pids });
            console.log(
              `[faults] node ${node.id} restarted and back in sync in ${((Date.now() - started) / 1000).toFixed(1)} s`,
            );
          }
        } finally {
          await admin.disconnect();
        }
      },
    });
    // Every node was really stopped and came back as a new process (bounceNode checks each; this, that all were).
    expect(bounced.map((b) => b.id)).toEqual(cluster.nodes.map((n) => n.id));
    for (const b of bounced) expect(b.startedPid, `node ${b.id}`).not.toBe(b.stoppedPid);
    await expectNothingLost(run);
  });
});
