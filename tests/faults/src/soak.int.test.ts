/**
 * The soak's three-minute version (`npm run soak` runs it for half an hour, soak.ts): retention of
 * seconds (5 s finished, 15 s without an outcome) under a steady load through ingest, a reconciler
 * killed with SIGKILL and a broker stalled on the way; state must stay flat — live correlations, the
 * changelog's records per live correlation and the reconcilers' memory no higher in the last third than
 * in the middle one, the changelog compacted (`flatness`) — and every guarantee of the fault oracle hold,
 * the replay across evictions included.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acquireCluster, type ClusterUnderTest, releaseCluster } from "./cluster.ts";
import { expectNothingLost } from "./scenario.ts";
import { flatness, runSoak } from "./soak.ts";

let cluster: ClusterUnderTest;
const log = (line: string) => console.log(`[soak] ${line}`);

beforeAll(async () => {
  cluster = await acquireCluster(log);
});
afterAll(async () => {
  await releaseCluster(cluster);
});

describe("soak, three minutes", () => {
  it("keeps state flat over 30 finished-retention periods with faults, and loses nothing", async () => {
    const result = await runSoak(
      cluster,
      {
        minutes: 3,
        retention: "5s",
        staleAfter: "15s",
        load: { correlations: 150, batch: 12, pauseMs: 60, lostShare: 0.3 },
        faultEverySeconds: 60,
        faults: ["reconciler-kill", "broker-stall"],
        reconcilers: ["r1", "r2"],
        sampleEverySeconds: 10,
      },
      log,
    );
    const flat = flatness(result.samples, 45);
    log(`flatness ${JSON.stringify(flat)}`);
    expect(result.events.map((e) => e.fault)).toEqual(expect.arrayContaining(["reconciler-kill", "broker-stall"]));
    // Every sample read the changelog to its end: one that stopped is a reader stuck in the log (a restore would be too).
    expect(result.sampleFailures).toEqual([]);
    expect(result.faultFailures, "every fault injected, its effect seen").toEqual([]);
    expect(result.samples.at(-1)?.liveCorrelations, "the load left live correlations to measure").toBeGreaterThan(0);
    // Eviction happened: far fewer correlations live at the end than the load sent.
    const sent = new Set([...result.load.acknowledged.values()].map((o) => o.correlationId)).size;
    expect(result.samples.at(-1)?.liveCorrelations ?? sent, `live at the end, of ${sent} sent`).toBeLessThan(sent / 3);
    expect(flat.flat, JSON.stringify(flat.detail)).toBe(true);
    await result.ledger.stop(true);
    await expectNothingLost({ ledger: result.ledger, load: result.load, findings: result.findings });
  }, 900_000);
});
