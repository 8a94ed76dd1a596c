/**
 * One fault scenario: the ledger on its own topics, first contact with both workers (the dispatcher
 * probes them), then the load with the fault injected part-way, then the verdict.
 */
import { expect } from "vitest";
import { type ClusterUnderTest, eventually, healCluster, quietAdmin } from "./cluster.ts";
import { defaultLoad, type LoadOptions, type LoadResult, runLoad } from "./load.ts";
import { Ledger } from "./mesh/ledger.ts";
import { type Findings, judge, settle } from "./verdict.ts";

export interface Fault {
  /** When to inject it: the share of the load sent (0..1). */
  at: number;
  /** Injects the fault; may run for a while (the load goes on meanwhile). */
  inject: (ledger: Ledger) => Promise<void>;
}

export interface Scenario extends Fault {
  reconcilers?: string[];
  load?: Partial<LoadOptions>;
  /** Before the load: e.g. a prefill of the changelog. */
  before?: (ledger: Ledger) => Promise<void>;
  log?: (line: string) => void;
}

export interface ScenarioRun {
  ledger: Ledger;
  load: LoadResult;
  findings: Findings;
}

/** First contact: an orchestrator fetches both cards through the proxies; the probes verify w-target's INPUT_REQUIRED. */
export async function firstContact(ledger: Ledger): Promise<void> {
  for (const url of Object.values(ledger.proxyUrls)) {
    const response = await fetch(`${url}/.well-known/agent-card.json`, { headers: { "A2A-Version": "1.0" } });
    expect(response.status).toBe(200);
  }
  await eventually(
    "both workers probed and w-target verified for INPUT_REQUIRED",
    async () => {
      const bodies = await Promise.all(
        ["w-target", "w-lost"].map(async (w) =>
          JSON.stringify(await (await fetch(`${ledger.projectorUrl}/v1/workers/${w}`)).json()),
        ),
      );
      return bodies.every((b) => /"verified":\{"states":\[[^\]]*TASK_STATE_INPUT_REQUIRED/.test(b)) ? true : undefined;
    },
    180_000,
    1_000,
  );
}

export async function runScenario(cluster: ClusterUnderTest, scenario: Scenario): Promise<ScenarioRun> {
  const fault = scenario;
  const options = scenario;
  const log = options.log ?? ((line: string) => console.log(`[faults] ${line}`));
  const ledger = new Ledger(cluster);
  let injected: Promise<void> | undefined;
  try {
    await ledger.start(options.reconcilers ?? ["r1", "r2"]);
    log(`ledger on ${ledger.suffix}: ingest ${ledger.ingestUrl}, projector ${ledger.projectorUrl}`);
    await firstContact(ledger);
    log("first contact done: both workers verified");
    await options.before?.(ledger);
    const load = await runLoad(ledger.ingestUrl, ledger.suffix, { ...defaultLoad, ...options.load }, (share) => {
      if (injected === undefined && share >= fault.at) {
        log(`injecting the fault at ${Math.round(share * 100)} % of the load`);
        injected = fault.inject(ledger);
        injected.catch(() => undefined);
      }
    });
    log(
      `load sent: ${load.acknowledged.size} observations acknowledged, ${load.lost.length} tasks lost, ${load.retries} retried requests, ${((load.finishedAt - load.startedAt) / 1000).toFixed(1)} s`,
    );
    if (injected === undefined) throw new Error("the fault was never injected");
    await injected;
    log("fault over; waiting for the ledger to settle");
    await settle(cluster, ledger, load);
    const findings = await judge(cluster, ledger, load);
    log(`verdict: ${JSON.stringify({ ...findings, replayDiffers: findings.replayDiffers.length })}`);
    return { ledger, load, findings };
  } catch (error) {
    log(
      `scenario failed; every process's output is in ${ledger.logDir}; its topics (suffix ${ledger.suffix}) are kept`,
    );
    throw error;
  } finally {
    // The topics stay until the verdict holds (expectNothingLost), so a failed one can be looked at.
    await ledger.stop(true).catch((e: unknown) => log(`stopping the ledger: ${String(e)}`));
    const admin = quietAdmin(cluster.brokers);
    await admin.connect();
    await healCluster(cluster, admin, []).finally(() => admin.disconnect());
  }
}

/** The guarantees of DESIGN §9, as assertions with the evidence in their messages; the processes' logs are dropped once they hold. */
export async function expectNothingLost(run: ScenarioRun): Promise<void> {
  const { findings } = run;
  expect(findings.missing, "acknowledged observations missing from the topic").toEqual([]);
  expect(findings.copiesOverBound, "eventIds with more copies than requests that carried them").toEqual([]);
  expect(findings.twoPayloads, "acknowledged eventIds with two different payloads").toEqual([]);
  expect(findings.duplicateDecisionIds, "decisionIds twice on the decisions topic").toEqual([]);
  expect(findings.duplicateCommandIds, "decisionIds twice on the commands topic").toEqual([]);
  expect(findings.commandsNotDecided, "commands that are not committed decisions").toEqual([]);
  // The oracle folded the reconciler's recorded batches, every observation in one (the ledger is at rest).
  expect(findings.replayOrder.batches, "batch records on a2a.reconciler.batches.v1").toBeGreaterThan(0);
  expect(findings.replayOrder.observationsAfterBatches, "observations in no batch record").toBe(0);
  expect(
    findings.replayDiffers.slice(0, 3),
    `${findings.replayDiffers.length} correlations whose committed decisions differ from the replay oracle`,
  ).toEqual([]);
  expect(findings.decisions).toBe(findings.expectedDecisions);
  expect(findings.redispatches, "re-dispatches commanded").toBeGreaterThan(0);
  expect(findings.deliveries, "re-dispatches that did not reach w-target exactly once").toEqual([]);
  expect(findings.misdirected, "re-dispatches sent to the worker that lost the task").toEqual([]);
  expect(
    findings.projectorDecisionsDiffer,
    "decisions the projector (read_committed, kafkajs) and Java's read_committed reader disagree on",
  ).toEqual({ onlyJava: [], onlyProjector: [] });
  expect(findings.viewsDiffer, "projector tables that differ from a rebuild").toEqual([]);
  run.ledger.dropLogs();
  await run.ledger.deleteTopics();
}
