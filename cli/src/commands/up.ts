/**
 * `a2a-ledger up [--demo] [--exit-after-demo]`: the product, working. Kafka and the registry are started
 * (or reused), then every service runs as its own process — ingest, the reconciler, the projector and
 * the dispatcher — with its log in `<data dir>/logs/<process>.log`.
 *
 * With --demo, the live mesh joins them: W1 and W2 (@a2a-js/sdk), W3 (the Python a2a-sdk; its virtual
 * environment is created when missing), one recording proxy per worker, and the orchestrator, which plays
 * the DESIGN §1 story through the proxies while this command restarts and reloads W1 when the story asks.
 * The ledger's decisions are printed as they are committed; at the end, the projector page's URL and what
 * to look at on it. Ctrl-C stops every process, in the reverse order of their start.
 *
 * A service that dies (every process but the orchestrator, whose story ends) is restarted by the
 * supervisor on the port it had, after a growing pause, and each death and restart is printed; one that
 * dies five times within a minute is given up, every process is stopped and `up` exits 1. W1's restart
 * in the story is the story's own: the supervisor does not add one.
 *
 * Every process runs compiled (`node <workspace>/dist/main.js`): `up` refuses to start when a workspace's
 * build is missing or was made from other sources than its src/ holds now, and says to run
 * `npm run build` (`npm start` builds first).
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { parseArgs } from "node:util";
import { compiledEnv, serveChaos } from "@a2a-ledger/env";
import { loadConfig as loadStackConfig, repoRoot, up as stackUp } from "@a2a-ledger/infra";
import {
  createKafka,
  ensureTopics,
  suffixedTopicNames,
  topicNames,
  topicSpecs,
  type TopicNames,
} from "@a2a-ledger/kafka";
import { LedgerFeed } from "@a2a-ledger/ledger-feed";
import type { Decision } from "@a2a-ledger/schemas";
import { assertBuilt, BuildMissingError } from "../build-output.ts";
import type { Command } from "../command.ts";
import { describeDecision } from "../describe-decision.ts";
import { exitCodes, UsageError, type Io } from "../io.ts";
import {
  demoIds,
  demoStory,
  demoWorkersFile,
  dispatcherSpec,
  entryPoints,
  ingestSpec,
  jsAgentSpec,
  newIngestTokens,
  orchestratorSpec,
  projectorSpec,
  proxySpec,
  pyAgentSpec,
  reconcilerSpec,
  type DemoWorker,
  type PlanContext,
} from "../mesh-plan.ts";
import { Supervisor, type Managed } from "../supervisor.ts";

const usage = "usage: a2a-ledger up [--demo] [--exit-after-demo]";
const run = promisify(execFile);

class Interrupted extends Error {}

/** W3's virtual environment: created (or checked, which is quick) by mesh/agent-py/setup.sh. */
async function ensurePythonVenv(io: Io): Promise<void> {
  try {
    const { stdout } = await run("bash", [join(repoRoot, "mesh/agent-py/setup.sh")], { timeout: 600_000 });
    io.stdout(`W3: ${stdout.trim().split("\n").at(-1) ?? "virtual environment ready"}\n`);
  } catch (e) {
    const failure = e as { stdout?: string; stderr?: string; message: string };
    throw new Error(
      `W3's virtual environment could not be made (bash mesh/agent-py/setup.sh):\n${failure.stderr || failure.stdout || failure.message}`,
    );
  }
}

interface Expected {
  what: string;
  match: (d: Decision) => boolean;
}

/** What the ledger must decide in a demo run. */
function expectedDecisions(runId: string): Expected[] {
  const ids = demoIds(runId);
  const violation =
    (kind: string, where: (d: Extract<Decision, { type: "ContractViolation" }>) => boolean) => (d: Decision) =>
      d.type === "ContractViolation" && d.kind === kind && where(d);
  return [
    {
      what: `${ids.tasks.lost} indeterminate (not failed)`,
      match: (d) => d.type === "TaskIndeterminate" && d.correlationId === ids.tasks.lost,
    },
    {
      what: `${ids.tasks.lost} re-dispatched to ${ids.workers.W3}`,
      match: (d) =>
        d.type === "RedispatchCommanded" && d.correlationId === ids.tasks.lost && d.targetWorkerId === ids.workers.W3,
    },
    {
      what: `${ids.tasks.lost} reconciled`,
      match: (d) => d.type === "TaskReconciled" && d.correlationId === ids.tasks.lost,
    },
    {
      what: `TASK_STORE_NOT_DURABLE for ${ids.workers.W1} (its parked canary)`,
      match: violation("TASK_STORE_NOT_DURABLE", (d) => d.workerId === ids.workers.W1),
    },
    {
      what: `OUTPUT_MODE_NOT_ADVERTISED on ${ids.tasks.retried}`,
      match: violation("OUTPUT_MODE_NOT_ADVERTISED", (d) => d.correlationId === ids.tasks.retried),
    },
    {
      what: `DIVERGENT_ARTIFACTS on ${ids.tasks.retried}`,
      match: violation("DIVERGENT_ARTIFACTS", (d) => d.correlationId === ids.tasks.retried),
    },
  ];
}

interface Running {
  sup: Supervisor;
  ctx: PlanContext;
  ingest: Managed;
  projector: Managed;
  brokers: string;
  registryUrl: string;
  dataDir: string;
}

async function startDemoMesh(
  io: Io,
  r: Running,
  runId: string,
): Promise<{ workers: DemoWorker[]; workersFile: string; storyFile: string; w1Config: string }> {
  const ids = demoIds(runId);
  const meshDir = join(r.dataDir, "mesh");
  mkdirSync(meshDir, { recursive: true });
  const w1Config = join(meshDir, "w1.json");
  writeFileSync(w1Config, `${JSON.stringify({ outputMediaType: "application/json" })}\n`);
  const ingestUrl = r.ingest.url ?? "";
  const agents = {
    W1: await r.sup.start(jsAgentSpec(r.ctx, "w1", w1Config)),
    // W2 enforces its card (@a2a-ledger/worker-guard): its refusals sit next to W1's unguarded text/plain.
    W2: await r.sup.start(jsAgentSpec(r.ctx, "w2", undefined, { workerId: ids.workers.W2, ingestUrl })),
    W3: await r.sup.start(pyAgentSpec(r.ctx, join(meshDir, "w3.sqlite"))),
  };
  const workers: DemoWorker[] = [];
  for (const label of ["W1", "W2", "W3"] as const) {
    const agent = agents[label];
    const proxy = await r.sup.start(proxySpec(r.ctx, ids.workers[label], label, agent.url ?? "", ingestUrl));
    workers.push({ label, workerId: ids.workers[label], workerUrl: agent.url ?? "", proxyUrl: proxy.url ?? "" });
    io.stdout(`${label}: ${ids.workers[label]} at ${agent.url}, through its proxy ${proxy.url}\n`);
  }
  const workersFile = join(meshDir, "dispatcher-workers.json");
  writeFileSync(workersFile, `${JSON.stringify(demoWorkersFile(workers), null, 2)}\n`);
  const storyFile = join(meshDir, "story.json");
  writeFileSync(storyFile, `${JSON.stringify(demoStory(runId, workers), null, 2)}\n`);
  return { workers, workersFile, storyFile, w1Config };
}

/** What `up` prints of the orchestrator's report (its "story done" log line): the lost task's way through the mesh. */
interface LostTaskReport {
  lost: { correlationId: string; serverTaskIds: { workerId: string; serverTaskId: string }[]; finalState: string };
}

function isLostTaskReport(value: unknown): value is LostTaskReport {
  const lost = (value as { lost?: unknown } | null)?.lost as Record<string, unknown> | undefined;
  return (
    typeof lost === "object" &&
    lost !== null &&
    typeof lost.correlationId === "string" &&
    typeof lost.finalState === "string" &&
    Array.isArray(lost.serverTaskIds) &&
    lost.serverTaskIds.every(
      (t: unknown) =>
        typeof (t as { workerId?: unknown }).workerId === "string" &&
        typeof (t as { serverTaskId?: unknown }).serverTaskId === "string",
    )
  );
}

/**
 * Runs the orchestrator as a process, doing W1's restart and reload when it asks over the IPC channel
 * (@a2a-ledger/env's chaos channel); resolves with its report or its failure.
 */
async function playStory(io: Io, r: Running, storyFile: string, w1Config: string): Promise<LostTaskReport | Error> {
  const orchestrator = await r.sup.start(
    orchestratorSpec(r.ctx, storyFile, (e) => typeof e.step === "string" && io.stdout(`orchestrator: ${e.step}\n`)),
  );
  serveChaos(orchestrator.child, {
    async restartW1() {
      io.stdout("chaos: restarting W1 (a new process on the same port: its in-memory tasks are gone)\n");
      await r.sup.restart("W1");
    },
    async reloadW1(outputMediaType) {
      io.stdout(
        `chaos: W1 reloads its configuration: answers in ${outputMediaType} from now on (its card does not change)\n`,
      );
      const w1 = r.sup.find("W1");
      if (w1 === undefined) throw new Error("W1 is not running");
      writeFileSync(w1Config, `${JSON.stringify({ outputMediaType })}\n`);
      const reloaded = w1.nextLine(
        (e) => e.msg === "configuration reloaded",
        10_000,
        "that it reloaded its configuration",
      );
      w1.child.kill("SIGHUP");
      await reloaded;
    },
  });
  const code = await orchestrator.exited;
  const done = orchestrator.lines.find((e) => e.msg === "story done");
  if (code === 0 && done !== undefined) {
    return isLostTaskReport(done.report)
      ? done.report
      : new Error(`the orchestrator's report does not say where the lost task went (${orchestrator.logFile})`);
  }
  const failed = orchestrator.lines.find((e) => e.msg === "story failed") as { err?: { message?: string } } | undefined;
  return new Error(
    `the orchestrator stopped (${code}): ${failed?.err?.message ?? "see its log"} (${orchestrator.logFile})`,
  );
}

function lookAt(io: Io, projector: Managed, runId: string): void {
  const ids = demoIds(runId);
  if (projector.url === undefined) {
    io.stdout(
      `projector: it did not report its address, so there is no page to open; its log says why (${projector.logFile})\n`,
    );
    return;
  }
  const page = `${projector.url}/`;
  io.stdout(
    [
      "",
      `The projector's page: ${page}`,
      "What to look at:",
      `  ${page}#/tasks/${ids.tasks.lost}    W1 lost the task waiting for input: the indeterminate period (never failed), the re-dispatch to ${ids.workers.W3}, both server task ids in one lineage`,
      `  ${page}#/tasks/${ids.tasks.retried}   the retry on W1 after its reload: application/json, then text/plain (OUTPUT_MODE_NOT_ADVERTISED, DIVERGENT_ARTIFACTS)`,
      `  ${page}#/workers/${ids.workers.W1}    W1 claims a durable store; its parked canary was lost (TASK_STORE_NOT_DURABLE): advertised vs verified`,
      `  ${page}#/queue                 the indeterminate and blocked queue`,
      "",
    ].join("\n"),
  );
}

async function demo(io: Io, r: Running): Promise<boolean> {
  await ensurePythonVenv(io);
  const runId = randomBytes(3).toString("hex");
  io.stdout(`demo ${runId}: starting W1, W2, W3 and their recording proxies\n`);
  const mesh = await startDemoMesh(io, r, runId);
  const dispatcher = await r.sup.start(dispatcherSpec(r.ctx, r.ingest.url ?? "", mesh.workersFile));
  io.stdout(`dispatcher: ${dispatcher.url} (workers file ${mesh.workersFile})\n`);

  const mine = (d: Decision) => d.correlationId.includes(runId) || (d.workerId ?? "").includes(runId);
  const feed = new LedgerFeed({
    brokers: r.brokers,
    registryUrl: r.registryUrl,
    topics: [r.ctx.topics.decisions],
    from: "end",
    clientId: "a2a-ledger-demo",
    keep: (record) => mine(record as Decision),
    onRecord: (record) => io.stdout(`  ledger: ${describeDecision(record as Decision)}\n`),
  });
  await feed.start();
  try {
    io.stdout(`demo ${runId}: the orchestrator plays the DESIGN §1 story through the proxies\n`);
    const report = await playStory(io, r, mesh.storyFile, mesh.w1Config);
    if (report instanceof Error) {
      io.stderr(`demo ${runId}: ${report.message}\n`);
      return false;
    }
    const missing: string[] = [];
    for (const expected of expectedDecisions(runId)) {
      await feed
        .waitFor((d) => expected.match(d as Decision), 60_000, expected.what)
        .catch(() => missing.push(expected.what));
    }
    const failed = feed.ofType("TaskFailed");
    io.stdout(
      `demo ${runId}: ${report.lost.correlationId} went ${report.lost.serverTaskIds.map((t) => `${t.workerId}/${t.serverTaskId}`).join(" → ")}, ended ${report.lost.finalState}\n`,
    );
    if (missing.length > 0 || failed.length > 0) {
      io.stderr(
        `demo ${runId}: the ledger did not decide ${[...missing, ...failed.map((f) => `no TaskFailed (got one for ${f.correlationId})`)].join("; ")}\n`,
      );
      return false;
    }
    io.stdout(`demo ${runId}: the ledger decided everything the story shows (${feed.records.length} decisions)\n`);
    io.stdout(`${JSON.stringify({ demo: runId, report })}\n`);
    lookAt(io, r.projector, runId);
    return true;
  } finally {
    await feed.stop().catch(() => undefined);
  }
}

export function parseUpArgs(args: string[]): { demo: boolean; exitAfterDemo: boolean } {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: { demo: { type: "boolean", default: false }, "exit-after-demo": { type: "boolean", default: false } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    throw new UsageError(`${e instanceof Error ? e.message : String(e)}\n${usage}`);
  }
  if (values["exit-after-demo"] && !values.demo) throw new UsageError(`--exit-after-demo needs --demo\n${usage}`);
  return { demo: values.demo, exitAfterDemo: values["exit-after-demo"] };
}

export const command: Command = {
  name: "up",
  summary:
    "run the ledger as processes (ingest, reconciler, projector, dispatcher); --demo adds W1–W3, their proxies and the orchestrator's live §1 story",
  usage,
  async run(args, io) {
    const values = parseUpArgs(args);
    try {
      assertBuilt(repoRoot, "a2a-ledger up");
    } catch (e) {
      if (!(e instanceof BuildMissingError)) throw e;
      io.stderr(`a2a-ledger up: ${e.message}\n`);
      return exitCodes.checkFailed;
    }
    const stackConfig = loadStackConfig();
    const logsDir = join(stackConfig.dataDir, "logs");
    const sup = new Supervisor(logsDir, {
      onStart: (m) =>
        io.stdout(
          `process ${m.spec.name}: pid ${m.child.pid}${m.url === undefined ? "" : `, ${m.url}`}, log ${m.logFile}\n`,
        ),
      // A service that dies is restarted (after 1 s, doubling up to 30 s) and said so; one that died 5 times within a minute ends the run.
      onEvent: (e) =>
        e.kind === "restarted" ? io.stdout(`process ${e.message}\n`) : io.stderr(`process ${e.message}\n`),
    });
    const gaveUp = sup.gaveUp.then((e): never => {
      throw new Error(`${e.message}; stopping every process`);
    });
    gaveUp.catch(() => undefined);
    const interrupted = new Promise<never>((_resolve, reject) => {
      const onSignal = (signal: string) => {
        io.stdout(`\n${signal}: stopping every process (Ctrl-C again to kill them)\n`);
        process.once("SIGINT", () => process.exit(130));
        reject(new Interrupted(signal));
      };
      process.once("SIGINT", () => onSignal("SIGINT"));
      process.once("SIGTERM", () => onSignal("SIGTERM"));
    });
    interrupted.catch(() => undefined);
    let code: number = exitCodes.ok;
    try {
      await Promise.race([interrupted, gaveUp, bringUp()]);
      if (!values.exitAfterDemo) {
        io.stdout("running; Ctrl-C stops every process (`npm run infra:down` stops Kafka and the registry)\n");
        await Promise.race([interrupted, gaveUp]);
      }
    } catch (e) {
      if (!(e instanceof Interrupted)) {
        io.stderr(`a2a-ledger up: ${e instanceof Error ? e.message : String(e)}\n`);
        code = exitCodes.checkFailed;
      }
    } finally {
      const count = sup.processes.length;
      await sup.stopAll();
      io.stdout(`stopped ${count} processes\n`);
    }
    return code;

    async function bringUp(): Promise<void> {
      const state = await stackUp(stackConfig, (line) => io.stdout(`stack: ${line}\n`));
      const suffix = process.env.A2A_LEDGER_TOPIC_SUFFIX?.trim();
      const topics: TopicNames = suffix ? suffixedTopicNames(suffix) : topicNames;
      // A2A_LEDGER_TOPIC_SUFFIX selects a side-by-side topic set: make sure it exists too.
      const admin = createKafka({ brokers: state.brokers, clientId: "a2a-ledger-up" }).admin();
      await admin.connect();
      await ensureTopics(admin, topicSpecs(topics, stackConfig.partitions)).finally(() => admin.disconnect());
      const env: NodeJS.ProcessEnv = {
        ...compiledEnv(process.env),
        KAFKA_BROKERS: state.brokers,
        SCHEMA_REGISTRY_URL: state.registryUrl,
        A2A_LEDGER_DATA_DIR: stackConfig.dataDir,
      };
      const ctx: PlanContext = {
        root: repoRoot,
        entries: entryPoints(repoRoot),
        env,
        topics,
        tokens: newIngestTokens(),
      };
      io.stdout(`logs: ${logsDir}/<process>.log\n`);
      const announce = (m: Managed, what: string) => io.stdout(`${m.spec.name}: ${what}\n`);
      const ingest = await sup.start(ingestSpec(ctx));
      announce(ingest, `POST ${ingest.url}/v1/observations, docs ${ingest.url}/docs`);
      announce(await sup.start(reconcilerSpec(ctx)), `consuming ${topics.observations}`);
      const projector = await sup.start(projectorSpec(ctx));
      announce(projector, `page ${projector.url}/, API ${projector.url}/v1/tasks`);
      const r: Running = {
        sup,
        ctx,
        ingest,
        projector,
        brokers: state.brokers,
        registryUrl: state.registryUrl,
        dataDir: stackConfig.dataDir,
      };
      if (!values.demo) {
        const workersFileSetting = (
          process.env.A2A_LEDGER_DISPATCHER_WORKERS_FILE ?? process.env.DISPATCHER_WORKERS_FILE
        )?.trim(); // the deprecated name is still read
        const workersFile = workersFileSetting ? resolve(workersFileSetting) : undefined;
        const dispatcher = await sup.start(dispatcherSpec(ctx, ingest.url ?? "", workersFile));
        announce(
          dispatcher,
          `consuming ${topics.commands}${workersFile === undefined ? "; no workers file (A2A_LEDGER_DISPATCHER_WORKERS_FILE), so commands are refused" : `, workers in ${workersFile}`}`,
        );
        io.stdout(`\nThe projector's page: ${projector.url}/\n`);
        return;
      }
      if (!(await demo(io, r))) throw new Error("the demo did not complete; the logs say why");
    }
  },
};
