/**
 * Scenario 3: the broker that coordinates the reconcilers' consumer group is stopped (SIGSTOP) for 25 s,
 * past the broker session (9 s) and the consumers' session timeout (10 s), then continued (SIGCONT):
 * a stall, not a death. The controller fences it, leadership and coordination move, and when it comes
 * back it catches up as a follower; clients that were talking to it time out and go elsewhere.
 */
import { describe, expect, it } from "vitest";
import {
  eventually,
  javaHashCode,
  leaders,
  nodeById,
  quietAdmin,
  quietAdminWithout,
  resumeNode,
  stallNode,
} from "./cluster.ts";
import { expectNothingLost, runScenario } from "./scenario.ts";
import { clusterSuite, sleep } from "./suite.ts";

const suite = clusterSuite();

describe("scenario 3: a broker stalls past the session timeout", () => {
  it("loses nothing and decides exactly what the replay decides once it continues", async () => {
    const { cluster } = suite;
    let stalled = 0;
    /** The group's coordinator while the node is stopped: the fault took effect (coordination moved). */
    let coordinatorWhileStopped = 0;
    const run = await runScenario(cluster, {
      at: 0.3,
      inject: async (ledger) => {
        const admin = quietAdmin(cluster.brokers);
        await admin.connect();
        // The group coordinator: the leader of __consumer_offsets partition abs(hash(group)) % partitions.
        const offsetsLeaders = await leaders(admin, "__consumer_offsets").finally(() => admin.disconnect());
        const offsetsPartition = (javaHashCode(ledger.reconcilerGroup) & 0x7fffffff) % offsetsLeaders.length;
        const coordinator = offsetsLeaders[offsetsPartition] as number;
        const node = nodeById(cluster, coordinator);
        expect(stallNode(node)).toBe(true);
        stalled = coordinator;
        console.log(`[faults] SIGSTOP node ${coordinator}, the reconcilers' group coordinator, for 25 s`);
        const started = Date.now();
        const watcher = quietAdminWithout(cluster, node);
        await watcher.connect();
        coordinatorWhileStopped = await eventually(
          "the reconcilers' group coordinator moved off the stopped node",
          async () => {
            const now = (await leaders(watcher, "__consumer_offsets"))[offsetsPartition];
            return now !== undefined && now >= 0 && now !== coordinator ? now : undefined;
          },
          22_000,
        ).finally(() => watcher.disconnect());
        console.log(`[faults] group coordinator while node ${coordinator} is stopped: ${coordinatorWhileStopped}`);
        await sleep(Math.max(0, 25_000 - (Date.now() - started)));
        expect(resumeNode(node)).toBe(true);
      },
    });
    expect(stalled).toBeGreaterThan(0);
    expect(coordinatorWhileStopped).toBeGreaterThan(0);
    expect(coordinatorWhileStopped).not.toBe(stalled);
    await expectNothingLost(run);
  });
});
