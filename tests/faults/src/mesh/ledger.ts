/**
 * The whole ledger on a private topic set, each service its own process started from its entry point:
 * ingest, reconcilers (any number, started and killed by id), the projector (SQLite), the dispatcher,
 * and a recording proxy in front of each real worker. The workers are counting @a2a-js/sdk agents in
 * this process: `w-lost` (whose tasks the load says were lost) and `w-target` (the only other worker
 * that verifies INPUT_REQUIRED, so every re-dispatch goes there).
 */
import { randomUUID } from "node:crypto";
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ChildService, type LogEntry, killHard, spawnService, stopChild } from "@a2a-ledger/env/testing";
import { repoRoot } from "@a2a-ledger/infra";
import { createKafka, ensureTopics, suffixedTopicNames, topicSpecs, type TopicNames } from "@a2a-ledger/kafka";
import { type CountingWorker, skillId, startCountingWorker } from "./counting-worker.ts";

export interface LedgerEndpoints {
  brokers: string;
  registryUrl: string;
}

const entry = (service: string) => join(repoRoot, "services", service, "src", "main.ts");
const tsx = (file: string, ...args: string[]) => ["--import", "tsx", file, ...args];

/** Ready once `msg` was logged; the URL is taken from whichever line carries one first. */
function readyWithUrl(
  msg: string,
  urlOf: (e: LogEntry) => string | undefined = (e) => (typeof e.url === "string" ? e.url : undefined),
) {
  let url: string | undefined;
  return {
    ready: (e: LogEntry) => {
      url ??= urlOf(e);
      return e.msg === msg;
    },
    url: () => {
      if (url === undefined) throw new Error(`no URL was logged before "${msg}"`);
      return url.replace(/\/+$/, "");
    },
  };
}

export class Ledger {
  readonly suffix = `faults-${randomUUID().slice(0, 8)}`;
  readonly topics: TopicNames = suffixedTopicNames(this.suffix);
  readonly reconcilerGroup = `reconciler-${this.suffix}`;
  readonly dir = mkdtempSync(join(tmpdir(), "fault-ledger-"));
  readonly projectorDb = join(this.dir, "projector.sqlite");
  readonly reconcilers = new Map<string, ChildService>();
  ingestUrl = "";
  projectorUrl = "";
  workers: Record<"lost" | "target", CountingWorker> | undefined;
  readonly proxyUrls: Record<string, string> = {};
  private ingest: ChildService | undefined;
  private projector: ChildService | undefined;
  private dispatcher: ChildService | undefined;
  private readonly proxies: ChildService[] = [];
  private readonly env: NodeJS.ProcessEnv;

  constructor(
    readonly endpoints: LedgerEndpoints,
    extraEnv: NodeJS.ProcessEnv = {},
  ) {
    this.env = {
      ...process.env,
      KAFKA_BROKERS: endpoints.brokers,
      SCHEMA_REGISTRY_URL: endpoints.registryUrl,
      A2A_LEDGER_TOPIC_SUFFIX: this.suffix,
      A2A_LEDGER_DATA_DIR: this.dir,
      A2A_LEDGER_LOG_LEVEL: "info",
      A2A_LEDGER_KAFKA_LOG_LEVEL: "error",
      ...extraEnv,
    };
  }

  /** Topics, then ingest, one reconciler, the projector, the workers, their proxies and the dispatcher. */
  async start(reconcilerIds: readonly string[] = ["r1"]): Promise<void> {
    const admin = createKafka({ brokers: this.endpoints.brokers, clientId: "fault-setup" }).admin();
    await admin.connect();
    await ensureTopics(admin, topicSpecs(this.topics)).finally(() => admin.disconnect());

    const ingestReady = readyWithUrl("ingest ready for observations", (e) =>
      typeof e.msg === "string" ? /^Server listening at (\S+)$/.exec(e.msg)?.[1] : undefined,
    );
    this.ingest = this.track(
      "ingest",
      await spawnService("ingest", process.execPath, tsx(entry("ingest")), {
        env: {
          ...this.env,
          A2A_LEDGER_INGEST_TOPIC: this.topics.observations,
          A2A_LEDGER_INGEST_PORT: "0",
          A2A_LEDGER_INGEST_LOG_LEVEL: "info",
        },
        ready: ingestReady.ready,
        startTimeoutMs: 90_000,
      }),
    );
    this.ingestUrl = ingestReady.url();

    for (const id of reconcilerIds) await this.startReconciler(id);

    const projectorReady = readyWithUrl("projector ready");
    this.projector = this.track(
      "projector",
      await spawnService("projector", process.execPath, tsx(entry("projector"), "serve"), {
        env: {
          ...this.env,
          A2A_LEDGER_PROJECTOR_SQLITE_PATH: this.projectorDb,
          A2A_LEDGER_PROJECTOR_PORT: "0",
          A2A_LEDGER_PROJECTOR_GROUP: `projector-${this.suffix}`,
          A2A_LEDGER_PROJECTOR_LOG_LEVEL: "info",
        },
        ready: projectorReady.ready,
        startTimeoutMs: 120_000,
      }),
    );
    this.projectorUrl = projectorReady.url();

    this.workers = { lost: await startCountingWorker("w-lost"), target: await startCountingWorker("w-target") };
    for (const [label, worker] of Object.entries(this.workers)) {
      const ready = readyWithUrl("listening");
      const proxy = await spawnService(`proxy-${label}`, process.execPath, tsx(entry("proxy")), {
        env: {
          ...this.env,
          A2A_LEDGER_PROXY_WORKER_ID: `w-${label}`,
          A2A_LEDGER_PROXY_UPSTREAM_URL: worker.url,
          A2A_LEDGER_PROXY_PORT: "0",
          A2A_LEDGER_PROXY_REWRITE_CARD_URLS: "true",
          A2A_LEDGER_PROXY_INGEST_URL: this.ingestUrl,
          A2A_LEDGER_PROXY_LOG_LEVEL: "info",
        },
        ready: ready.ready,
        startTimeoutMs: 90_000,
      });
      this.proxies.push(this.track(`proxy-${label}`, proxy));
      this.proxyUrls[`w-${label}`] = ready.url();
    }

    const workersFile = join(this.dir, "workers.json");
    const skills = {
      [skillId]: {
        redispatch: {
          message: "{correlationId}: answer again (attempt {attempt})",
          resume: {
            TASK_STATE_INPUT_REQUIRED:
              "need-input {correlationId}: resumed after {fromServerTaskId} was lost (attempt {attempt})",
          },
        },
        canaries: [{ message: "probe canary" }, { message: "need-input probe canary", park: true }],
      },
    };
    writeFileSync(
      workersFile,
      JSON.stringify({
        workers: Object.fromEntries(
          Object.entries(this.workers).map(([label, w]) => [
            `w-${label}`,
            { url: this.proxyUrls[`w-${label}`], workerUrl: w.url, skills },
          ]),
        ),
      }),
    );
    const dispatcherReady = readyWithUrl("partitions assigned", (e) =>
      e.msg === "listening" && typeof e.url === "string" ? e.url : undefined,
    );
    this.dispatcher = this.track(
      "dispatcher",
      await spawnService("dispatcher", process.execPath, tsx(entry("dispatcher")), {
        env: {
          ...this.env,
          A2A_LEDGER_DISPATCHER_WORKERS_FILE: workersFile,
          A2A_LEDGER_DISPATCHER_INGEST_URL: this.ingestUrl,
          A2A_LEDGER_DISPATCHER_JOURNAL_PATH: join(this.dir, "journal.sqlite"),
          A2A_LEDGER_DISPATCHER_GROUP: `dispatcher-${this.suffix}`,
          A2A_LEDGER_DISPATCHER_PORT: "0",
          A2A_LEDGER_DISPATCHER_FROM_BEGINNING: "true",
          A2A_LEDGER_DISPATCHER_CANARY_POLL_MS: "2000",
          A2A_LEDGER_DISPATCHER_LOG_LEVEL: "info",
        },
        ready: dispatcherReady.ready,
        startTimeoutMs: 120_000,
      }),
    );
  }

  /**
   * The reconcilers' log level. debug: every committed transaction is logged with its input offsets, for
   * a failed scenario's logs; a measurement of the reconcilers' CPU (scale-out) runs them at info.
   */
  reconcilerLogLevel = "debug";

  async startReconciler(id: string): Promise<ChildService> {
    const service = await spawnService(`reconciler ${id}`, process.execPath, tsx(entry("reconciler")), {
      env: {
        ...this.env,
        A2A_LEDGER_INSTANCE_ID: id,
        A2A_LEDGER_RECONCILER_GROUP: this.reconcilerGroup,
        A2A_LEDGER_RECONCILER_SESSION_TIMEOUT_MS: "10000",
        A2A_LEDGER_LOG_LEVEL: this.reconcilerLogLevel,
      },
      ready: (e) => e.msg === "reconciler started",
      startTimeoutMs: 120_000,
    });
    this.reconcilers.set(id, this.track(`reconciler-${id}`, service));
    return service;
  }

  async killReconciler(id: string): Promise<void> {
    const service = this.reconcilers.get(id);
    if (service === undefined) throw new Error(`no reconciler ${id}`);
    await killHard(service.child);
    this.reconcilers.delete(id);
  }

  async stopReconciler(id: string): Promise<void> {
    const service = this.reconcilers.get(id);
    if (service === undefined) throw new Error(`no reconciler ${id}`);
    await stopChild(service.child, 30_000);
    this.reconcilers.delete(id);
  }

  /**
   * Stops the dispatcher and the proxies (SIGTERM: what they hold is sent first). The dispatcher keeps
   * re-polling its parked canaries, whose answers the proxies record for as long as they run: without
   * this the observations topic never stops growing.
   */
  async stopSources(): Promise<void> {
    if (this.dispatcher !== undefined) await stopChild(this.dispatcher.child, 30_000);
    this.dispatcher = undefined;
    await Promise.all(this.proxies.map((p) => stopChild(p.child, 30_000)));
    this.proxies.length = 0;
  }

  /** Stops the projector (SIGTERM): its database file is then read and rebuilt by the verdict. */
  async stopProjector(): Promise<void> {
    if (this.projector !== undefined) await stopChild(this.projector.child, 30_000);
    this.projector = undefined;
  }

  /** Every process this ledger ran, by name, the stopped and killed ones included. */
  private readonly ran = new Map<string, ChildService>();

  /** Where every process's output goes as it runs: `<repo>/.a2a-ledger/fault-logs/<suffix>/<process>.log`. */
  readonly logDir = join(repoRoot, ".a2a-ledger", "fault-logs", this.suffix);

  private track(name: string, service: ChildService): ChildService {
    let key = name;
    for (let i = 2; this.ran.has(key); i++) key = `${name}-${i}`;
    this.ran.set(key, service);
    mkdirSync(this.logDir, { recursive: true });
    const file = join(this.logDir, `${key.replace(/[^A-Za-z0-9._-]+/g, "-")}.log`);
    writeFileSync(file, service.output());
    const append = (chunk: Buffer) => appendFileSync(file, chunk);
    service.child.stdout?.on("data", append);
    service.child.stderr?.on("data", append);
    return service;
  }

  /** Stops every process; the topics are deleted unless `keepTopics` (a failed scenario keeps them to look at). */
  async stop(keepTopics = false): Promise<void> {
    const children = [
      this.dispatcher,
      ...this.proxies,
      ...this.reconcilers.values(),
      this.projector,
      this.ingest,
    ].filter((s): s is ChildService => s !== undefined);
    await Promise.all(children.map((s) => stopChild(s.child, 20_000)));
    this.reconcilers.clear();
    if (this.workers !== undefined) await Promise.all(Object.values(this.workers).map((w) => w.close()));
    if (!keepTopics) await this.deleteTopics();
    rmSync(this.dir, { recursive: true, force: true });
  }

  async deleteTopics(): Promise<void> {
    const admin = createKafka({ brokers: this.endpoints.brokers, clientId: "fault-teardown" }).admin();
    await admin
      .connect()
      .then(() => admin.deleteTopics({ topics: Object.values(this.topics) }))
      .catch(() => undefined)
      .finally(() => admin.disconnect());
  }

  /** Drops the processes' logs (kept when a scenario fails). */
  dropLogs(): void {
    rmSync(this.logDir, { recursive: true, force: true });
  }
}
