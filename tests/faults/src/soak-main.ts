/**
 * `npm run soak` (not in CI; CI runs the three-minute `soak.int.test.ts`): the soak (soak.ts) for
 * SOAK_MINUTES (30) on the running three-node stack, or a private one. It prints a sample every
 * SOAK_SAMPLE_S (30) seconds and each fault, then a table for BENCHMARKS.md and the verdict; exit 1 when
 * state did not stay flat or a guarantee of the fault oracle failed.
 *
 *   SOAK_MINUTES (30), SOAK_RETENTION (20s), SOAK_STALE_AFTER (60s), SOAK_ROUND (400 correlations),
 *   SOAK_BATCH (20), SOAK_PAUSE_MS (50), SOAK_FAULT_EVERY_S (180), SOAK_FAULTS (all eight, comma-separated),
 *   SOAK_RECONCILERS (r1,r2), SOAK_SAMPLE_S (30)
 */
import { acquireCluster, releaseCluster } from "./cluster.ts";
import { positiveNumber } from "./env-number.ts";
import { expectNothingLost } from "./scenario.ts";
import { flatness, runSoak, type SoakFault, soakFaults } from "./soak.ts";

const env = (name: string, fallback: string) => process.env[name]?.trim() || fallback;
const faults = env("SOAK_FAULTS", soakFaults.join(","))
  .split(",")
  .map((f) => f.trim())
  .filter((f) => f !== "");
for (const f of faults)
  if (!soakFaults.includes(f as SoakFault)) throw new Error(`SOAK_FAULTS: ${f} is not one of ${soakFaults.join(", ")}`);

const log = (line: string) => console.log(`[soak] ${new Date().toISOString().slice(11, 19)} ${line}`);
const options = {
  minutes: positiveNumber("SOAK_MINUTES", 30),
  retention: env("SOAK_RETENTION", "20s"),
  staleAfter: env("SOAK_STALE_AFTER", "60s"),
  load: {
    correlations: positiveNumber("SOAK_ROUND", 400),
    batch: positiveNumber("SOAK_BATCH", 20),
    pauseMs: positiveNumber("SOAK_PAUSE_MS", 50),
    lostShare: 0.3,
  },
  faultEverySeconds: positiveNumber("SOAK_FAULT_EVERY_S", 180),
  faults: faults as SoakFault[],
  reconcilers: env("SOAK_RECONCILERS", "r1,r2").split(","),
  sampleEverySeconds: positiveNumber("SOAK_SAMPLE_S", 30),
};

const cluster = await acquireCluster(log);
let failed = false;
try {
  log(`options ${JSON.stringify(options)}`);
  const result = await runSoak(cluster, options, log);
  const seconds = (result.load.finishedAt - result.load.startedAt) / 1000;
  console.log(
    "\n| t (s) | reconciler RSS (MiB) | live correlations | changelog records | written to it | changelog on disk (KiB) | lag |",
  );
  console.log("|---|---|---|---|---|---|---|");
  for (const s of result.samples)
    console.log(
      `| ${s.atS} | ${Object.values(s.rssMiB).join(" / ")} | ${s.liveCorrelations} | ${s.changelogRecords} | ${s.changelogWritten} | ${(s.changelogBytes / 1024).toFixed(0)} | ${s.lag} |`,
    );
  console.log("\nfaults:");
  for (const e of result.events) console.log(`- t=${e.atS}s ${e.fault}: ${e.detail}`);
  console.log(`\nsamples not taken: ${result.sampleFailures.length}`);
  for (const f of result.sampleFailures) console.log(`- ${f}`);
  console.log(`faults that failed: ${result.faultFailures.length}`);
  for (const f of result.faultFailures) console.log(`- ${f}`);
  const warmup = 3 * Number.parseInt(options.staleAfter, 10);
  const flat = flatness(result.samples, warmup);
  console.log(
    `\n${result.load.acknowledged.size} observations acknowledged in ${seconds.toFixed(0)} s (${(result.load.acknowledged.size / seconds).toFixed(0)}/s), ${result.load.lost.length} tasks lost and ${result.findings.redispatches} re-dispatched; ${result.findings.decisions} decisions`,
  );
  console.log(`flat after ${warmup} s: ${JSON.stringify(flat)}`);
  console.log(
    `verdict: missing ${result.findings.missing.length}, decisionIds twice ${result.findings.duplicateDecisionIds.length}, replay differs for ${result.findings.replayDiffers.length} correlations`,
  );
  await result.ledger.stop(true);
  await expectNothingLost({ ledger: result.ledger, load: result.load, findings: result.findings });
  if (!flat.flat) throw new Error("state did not stay flat");
  if (result.sampleFailures.length > 0) throw new Error("samples were not taken: a read of the changelog stopped");
  if (result.faultFailures.length > 0) throw new Error("faults failed to be injected or to take effect");
  log("state flat, and every guarantee of the fault oracle holds");
} catch (error) {
  failed = true;
  log(`soak failed: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  await releaseCluster(cluster);
}
process.exit(failed ? 1 : 0);
