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

/** The services a `Ledger` runs besides its reconcilers (each can be killed and started again). */
export type LedgerService = "ingest" | "projector" | "dispatcher" | "proxy-lost" | "proxy-target";
export const ledgerServices: readonly LedgerService[] = [
  "ingest",
  "projector",
  "dispatcher",
  "proxy-lost",
  "proxy-target",
];

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
    urlIfAny: () => url?.replace(/\/+$/, ""),
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
  dispatcherUrl = "";
  workers: Record<"lost" | "target", CountingWorker> | undefined;
  readonly proxyUrls: Record<string, string> = {};
  /** The services other than the reconcilers, running, by name. */
  private readonly running = new Map<LedgerService, ChildService>();
  /** How each service is started again, on the port it first took (so every URL that names it still holds). */
  private readonly launchers = new Map<LedgerService, (port: string) => Promise<ChildService>>();
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

    this.ingestUrl = await this.launch("ingest", async (port) => {
      const ready = readyWithUrl("ingest ready for observations", (e) =>
        typeof e.msg === "string" ? /^Server listening at (\S+)$/.exec(e.msg)?.[1] : undefined,
      );
      const service = await spawnService("ingest", process.execPath, tsx(entry("ingest")), {
        env: {
          ...this.env,
          A2A_LEDGER_INGEST_TOPIC: this.topics.observations,
          A2A_LEDGER_INGEST_PORT: port,
          A2A_LEDGER_INGEST_LOG_LEVEL: "info",
        },
        ready: ready.ready,
        startTimeoutMs: 90_000,
      });
      return { service, url: ready.url() };
    });

    for (const id of reconcilerIds) await this.startReconciler(id);

    this.projectorUrl = await this.launch("projector", async (port) => {
      const ready = readyWithUrl("projector ready");
      const service = await spawnService("projector", process.execPath, tsx(entry("projector"), "serve"), {
        env: {
          ...this.env,
          A2A_LEDGER_PROJECTOR_SQLITE_PATH: this.projectorDb,
          A2A_LEDGER_PROJECTOR_PORT: port,
          A2A_LEDGER_PROJECTOR_GROUP: `projector-${this.suffix}`,
          A2A_LEDGER_PROJECTOR_LOG_LEVEL: "info",
        },
        ready: ready.ready,
        startTimeoutMs: 120_000,
      });
      return { service, url: ready.url() };
    });

    this.workers = { lost: await startCountingWorker("w-lost"), target: await startCountingWorker("w-target") };
    for (const [label, worker] of Object.entries(this.workers)) {
      this.proxyUrls[`w-${label}`] = await this.launch(`proxy-${label}` as LedgerService, async (port) => {
        const ready = readyWithUrl("listening");
        const service = await spawnService(`proxy-${label}`, process.execPath, tsx(entry("proxy")), {
          env: {
            ...this.env,
            A2A_LEDGER_PROXY_WORKER_ID: `w-${label}`,
            A2A_LEDGER_PROXY_UPSTREAM_URL: worker.url,
            A2A_LEDGER_PROXY_PORT: port,
            A2A_LEDGER_PROXY_REWRITE_CARD_URLS: "true",
            A2A_LEDGER_PROXY_INGEST_URL: this.ingestUrl,
            A2A_LEDGER_PROXY_LOG_LEVEL: "info",
          },
          ready: ready.ready,
          startTimeoutMs: 90_000,
        });
        return { service, url: ready.url() };
      });
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
    this.dispatcherUrl = await this.launch("dispatcher", async (port) => {
      const ready = readyWithUrl("partitions assigned", (e) =>
        e.msg === "listening" && typeof e.url === "string" ? e.url : undefined,
      );
      const service = await spawnService("dispatcher", process.execPath, tsx(entry("dispatcher")), {
        env: {
          ...this.env,
          A2A_LEDGER_DISPATCHER_WORKERS_FILE: workersFile,
          A2A_LEDGER_DISPATCHER_INGEST_URL: this.ingestUrl,
          A2A_LEDGER_DISPATCHER_JOURNAL_PATH: join(this.dir, "journal.sqlite"),
          A2A_LEDGER_DISPATCHER_GROUP: `dispatcher-${this.suffix}`,
          A2A_LEDGER_DISPATCHER_PORT: port,
          A2A_LEDGER_DISPATCHER_FROM_BEGINNING: "true",
          A2A_LEDGER_DISPATCHER_CANARY_POLL_MS: "2000",
          A2A_LEDGER_DISPATCHER_LOG_LEVEL: "info",
        },
        ready: ready.ready,
        startTimeoutMs: 120_000,
      });
      // Ready once its partitions are assigned, which it may say before it listens: nothing here calls it.
      return { service, url: ready.urlIfAny() ?? "" };
    });
  }

  /** Starts a service on port 0 and keeps how to start it again on the port it took; returns its URL. */
  private async launch(
    name: LedgerService,
    start: (port: string) => Promise<{ service: ChildService; url: string }>,
  ): Promise<string> {
    const first = await start("0");
    this.running.set(name, this.track(name, first.service));
    this.launchers.set(name, async (port) => (await start(port)).service);
    return first.url;
  }

  /**
   * `kill -9` of a service (not a reconciler: `killReconciler`), then a start of it again from its entry
   * point, with the same settings and files, on the port it had: the URLs that name it still hold. Resolves
   * once the new process said it is ready, with the old and the new process ids and the time it took.
   */
  async killAndRestart(name: LedgerService): Promise<{ killed: number; started: number; ms: number }> {
    const service = this.running.get(name);
    const launcher = this.launchers.get(name);
    if (service === undefined || launcher === undefined) throw new Error(`no ${name} running`);
    const killed = service.child.pid ?? -1;
    const port = this.portOf(name);
    await killHard(service.child);
    this.running.delete(name);
    const startedAt = Date.now();
    const again = this.track(name, await launcher(port));
    this.running.set(name, again);
    return { killed, started: again.child.pid ?? -1, ms: Date.now() - startedAt };
  }

  private portOf(name: LedgerService): string {
    const url =
      name === "ingest"
        ? this.ingestUrl
        : name === "projector"
          ? this.projectorUrl
          : name === "dispatcher"
            ? this.dispatcherUrl || "http://127.0.0.1:0"
            : this.proxyUrls[`w-${name.slice("proxy-".length)}`];
    const port = url === undefined ? "" : new URL(url).port;
    if (port === "") throw new Error(`${name} has no port to start again on`);
    return port;
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
    await this.stopService("dispatcher");
    await Promise.all((["proxy-lost", "proxy-target"] as const).map((name) => this.stopService(name)));
  }

  private async stopService(name: LedgerService): Promise<void> {
    const service = this.running.get(name);
    if (service !== undefined) await stopChild(service.child, 30_000);
    this.running.delete(name);
  }

  /** Stops the projector (SIGTERM): its database file is then read and rebuilt by the verdict. */
  async stopProjector(): Promise<void> {
    await this.stopService("projector");
  }

  /** The process ids of what runs now: each service by name, and each reconciler as `reconciler-<id>`. */
  pids(): Record<string, number | undefined> {
    const out: Record<string, number | undefined> = {};
    for (const [name, service] of this.running) out[name] = service.child.pid;
    for (const [id, service] of this.reconcilers) out[`reconciler-${id}`] = service.child.pid;
    return out;
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
    const children = [...this.running.values(), ...this.reconcilers.values()];
    await Promise.all(children.map((s) => stopChild(s.child, 20_000)));
    this.running.clear();
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
