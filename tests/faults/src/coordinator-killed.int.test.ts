/**
 * Scenario 2: the broker that coordinates most of the reconcilers' transactions is killed (SIGKILL) the
 * moment a transaction's records are visible uncommitted, and started again 15 s later. The
 * transactional producers find the new coordinator (their state is replicated in __transaction_state)
 * or are replaced; a commit whose outcome is unknown is never taken for done or for lost.
 */
import { describe, expect, it } from "vitest";
import { correlationPartitions } from "@a2a-ledger/kafka";
import {
  eventually,
  killNode,
  nodeById,
  quietAdmin,
  quietAdminWithout,
  restartNode,
  transactionCoordinators,
} from "./cluster.ts";
import { whenTransactionOpen } from "./open-transaction.ts";
import { expectNothingLost, runScenario } from "./scenario.ts";
import { clusterSuite, sleep } from "./suite.ts";

const suite = clusterSuite();

describe("scenario 2: the transaction coordinator dies inside open transactions", () => {
  it("commits exactly the decisions of the replay, none twice", async () => {
    const { cluster } = suite;
    let killed = 0;
    /** Every reconciler transactional id's coordinator while the node is down: the fault took effect (coordination moved). */
    let coordinatorsWhileDown: number[] = [];
    const run = await runScenario(cluster, {
      at: 0.3,
      inject: async (ledger) => {
        const ids = Array.from(
          { length: correlationPartitions },
          (_, p) => `${ledger.reconcilerGroup}.${ledger.topics.observations}.${p}`,
        );
        const admin = quietAdmin(cluster.brokers);
        await admin.connect();
        const coordinators = await transactionCoordinators(admin, ids).finally(() => admin.disconnect());
        const counts = new Map<number, number>();
        for (const node of coordinators.values()) counts.set(node, (counts.get(node) ?? 0) + 1);
        const [coordinator] = [...counts].sort((a, b) => b[1] - a[1])[0] as [number, number];
        const open = await whenTransactionOpen(
          cluster.brokers,
          [ledger.topics.changelog, ledger.topics.decisions],
          60_000,
          100,
        );
        const node = nodeById(cluster, coordinator);
        expect(killNode(node)).toBe(true);
        killed = coordinator;
        console.log(
          `[faults] SIGKILL node ${coordinator}, coordinator of ${counts.get(coordinator)} of ${ids.length} reconciler transactional ids, with a transaction open (${JSON.stringify(open)})`,
        );
        const started = Date.now();
        const watcher = quietAdminWithout(cluster, node);
        await watcher.connect();
        coordinatorsWhileDown = await eventually(
          "coordination of every reconciler transactional id moved off the killed node",
          async () => {
            const now = [...(await transactionCoordinators(watcher, ids)).values()];
            return now.every((n) => n >= 0 && n !== coordinator) ? now : undefined;
          },
          14_000,
        ).finally(() => watcher.disconnect());
        console.log(
          `[faults] coordinators while node ${coordinator} is down: ${[...new Set(coordinatorsWhileDown)].sort().join(", ")}`,
        );
        await sleep(Math.max(0, 15_000 - (Date.now() - started)));
        await restartNode(cluster, node);
      },
    });
    expect(killed).toBeGreaterThan(0);
    expect(coordinatorsWhileDown.length).toBe(correlationPartitions);
    expect(coordinatorsWhileDown).not.toContain(killed);
    console.log(
      `[faults] records of aborted transactions (read_uncommitted − read_committed): ${run.findings.abortedRecords}`,
    );
    await expectNothingLost(run);
  });
});
