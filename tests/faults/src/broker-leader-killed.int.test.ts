/**
 * Scenario 1: the broker leading most observation partitions is killed (SIGKILL) while the load flows,
 * and started again 15 s later. Ingest answers 503 meanwhile and the client retries; leadership moves
 * to the in-sync followers; nothing acknowledged is lost.
 */
import { describe, expect, it } from "vitest";
import {
  busiestLeader,
  eventually,
  killNode,
  leaders,
  nodeById,
  quietAdmin,
  quietAdminWithout,
  restartNode,
} from "./cluster.ts";
import { expectNothingLost, runScenario } from "./scenario.ts";
import { clusterSuite, sleep } from "./suite.ts";

const suite = clusterSuite();

describe("scenario 1: the leader of the observation partitions dies", () => {
  it("loses no acknowledged observation and decides exactly what the replay decides", async () => {
    const { cluster } = suite;
    let killed = 0;
    /** The observation partitions' leaders while the node is down: the fault took effect (leadership moved). */
    let leadersWhileDown: number[] = [];
    const run = await runScenario(cluster, {
      at: 0.3,
      inject: async (ledger) => {
        const admin = quietAdmin(cluster.brokers);
        await admin.connect();
        const leader = await busiestLeader(admin, ledger.topics.observations).finally(() => admin.disconnect());
        const node = nodeById(cluster, leader);
        expect(killNode(node)).toBe(true);
        killed = leader;
        console.log(`[faults] SIGKILL node ${leader}, the leader of most observation partitions`);
        const started = Date.now();
        const watcher = quietAdminWithout(cluster, node);
        await watcher.connect();
        leadersWhileDown = await eventually(
          "leadership of the observation partitions moved off the killed node",
          async () => {
            const now = await leaders(watcher, ledger.topics.observations);
            return now.length > 0 && now.every((l) => l >= 0 && l !== leader) ? now : undefined;
          },
          14_000,
        ).finally(() => watcher.disconnect());
        console.log(`[faults] leaders while node ${leader} is down: ${leadersWhileDown.join(", ")}`);
        await sleep(Math.max(0, 15_000 - (Date.now() - started)));
        await restartNode(cluster, node);
      },
    });
    expect(killed).toBeGreaterThan(0);
    expect(leadersWhileDown.length).toBeGreaterThan(0);
    expect(leadersWhileDown).not.toContain(killed);
    await expectNothingLost(run);
  });
});
