/**
 * Prometheus metrics of the reconciler: lag per partition, decisions per kind, transactions.
 */
import { createServer, type Server } from "node:http";
import client from "prom-client";

/** What /readyz answers: ready, or why not (with details for the operator). */
export type Readiness = { ready: true } | { ready: false; status: string; detail?: Record<string, unknown> };

export class ReconcilerMetrics {
  readonly registry = new client.Registry();
  readonly lag = new client.Gauge({
    name: "a2a_reconciler_lag",
    help: "Observations behind the end of each input partition",
    labelNames: ["partition"],
    registers: [this.registry],
  });
  readonly decisions = new client.Counter({
    name: "a2a_reconciler_decisions_total",
    help: "Decisions committed, by kind",
    labelNames: ["kind"],
    registers: [this.registry],
  });
  readonly observations = new client.Counter({
    name: "a2a_reconciler_observations_total",
    help: "Observations processed in committed transactions",
    registers: [this.registry],
  });
  readonly deadLetters = new client.Counter({
    name: "a2a_reconciler_dead_letters_total",
    help: "Records sent to the dead-letter topic, by reason",
    labelNames: ["reason"],
    registers: [this.registry],
  });
  readonly probesAwaitingCard = new client.Counter({
    name: "a2a_reconciler_probes_awaiting_card_total",
    help: "Probe results held back for the card they name: waiting (each time one began to wait), expired (folded without it after the bound)",
    labelNames: ["outcome"],
    registers: [this.registry],
  });
  readonly evicted = new client.Counter({
    name: "a2a_reconciler_correlations_evicted_total",
    help: "Correlations that left the state by retention: finished (silently) or stale (with CorrelationExpired)",
    labelNames: ["outcome"],
    registers: [this.registry],
  });
  readonly commits = new client.Counter({
    name: "a2a_reconciler_transaction_commits_total",
    help: "Committed transactions",
    registers: [this.registry],
  });
  readonly aborts = new client.Counter({
    name: "a2a_reconciler_transaction_aborts_total",
    help: "Aborted transactions",
    registers: [this.registry],
  });
  readonly stageSeconds = new client.Counter({
    name: "a2a_reconciler_stage_seconds_total",
    help: "Time spent per stage of a transaction (restore, capabilities, decode, rules, encode, send, offsets, commit)",
    labelNames: ["stage"],
    registers: [this.registry],
  });
  readonly unknownOutcomes = new client.Counter({
    name: "a2a_reconciler_transaction_unknown_outcomes_total",
    help: "Transaction steps that did not finish in time (the producer was replaced), by step",
    labelNames: ["step"],
    registers: [this.registry],
  });
  readonly alreadyCommitted = new client.Counter({
    name: "a2a_reconciler_already_committed_total",
    help: "Records fetched again after an assignment that the previous owner had folded and committed, skipped",
    labelNames: ["partition"],
    registers: [this.registry],
  });
  readonly consumerRestarts = new client.Counter({
    name: "a2a_reconciler_consumer_restarts_total",
    help: "Restarts of the consumer after a failure",
    registers: [this.registry],
  });
  readonly restores = new client.Counter({
    name: "a2a_reconciler_changelog_restores_total",
    help: "Changelog restores after an assignment",
    registers: [this.registry],
  });
  readonly partitionRestores = new client.Counter({
    name: "a2a_reconciler_partition_restores_total",
    help: "Partitions restored from the changelog, by partition",
    labelNames: ["partition"],
    registers: [this.registry],
  });
  readonly restoreRemaining = new client.Gauge({
    name: "a2a_reconciler_restore_remaining_offsets",
    help: "Changelog offsets the restore in progress still has to read, by partition (0 once restored)",
    labelNames: ["partition"],
    registers: [this.registry],
  });
  readonly restoreRecords = new client.Counter({
    name: "a2a_reconciler_restore_records_total",
    help: "Changelog records read by restores (a local snapshot's partition reads only those after it), by partition",
    labelNames: ["partition"],
    registers: [this.registry],
  });
  readonly snapshotRestores = new client.Counter({
    name: "a2a_reconciler_snapshot_restores_total",
    help: "Partitions restored from a local state snapshot and the changelog after it, by partition",
    labelNames: ["partition"],
    registers: [this.registry],
  });
  readonly statesKept = new client.Counter({
    name: "a2a_reconciler_states_kept_total",
    help: "Partitions kept across a rebalance whose state was kept (not restored again), by partition",
    labelNames: ["partition"],
    registers: [this.registry],
  });

  /** Live correlations per partition, read when scraped (set by `watchCorrelations`). */
  private liveByPartition: () => ReadonlyMap<number, number> = () => new Map();
  readonly liveCorrelations = new client.Gauge({
    name: "a2a_reconciler_live_correlations",
    help: "Correlations held in memory (the state of each assigned partition), by partition",
    labelNames: ["partition"],
    registers: [this.registry],
    collect: () => {
      this.liveCorrelations.reset();
      for (const [partition, count] of this.liveByPartition())
        this.liveCorrelations.set({ partition: String(partition) }, count);
    },
  });
  readonly maxCorrelations = new client.Gauge({
    name: "a2a_reconciler_max_correlations",
    help: "The memory budget: live correlations this instance may hold, every partition together (A2A_LEDGER_RECONCILER_MAX_CORRELATIONS)",
    registers: [this.registry],
  });

  /** The live-correlation gauge reads `live` when scraped; the budget gauge is set to `max`. */
  watchCorrelations(live: () => ReadonlyMap<number, number>, max: number): void {
    this.liveByPartition = live;
    this.maxCorrelations.set(max);
  }

  /** Whether the instance takes new work: set by the reconciler (`watchReadiness`), read by /readyz. */
  private readiness: () => Readiness = () => ({ ready: true });

  watchReadiness(readiness: () => Readiness): void {
    this.readiness = readiness;
  }

  /**
   * Serves /metrics, /healthz (200 while running) and /readyz on 127.0.0.1:port. /readyz is 503 while
   * the instance is not running or observations wait for room in its correlation budget, with why.
   */
  serve(port: number, healthy: () => boolean): Promise<Server> {
    const server = createServer((req, res) => {
      if (req.url === "/metrics") {
        void this.registry.metrics().then((text) => {
          res.writeHead(200, { "content-type": this.registry.contentType });
          res.end(text);
        });
      } else if (req.url === "/readyz") {
        const readiness: Readiness = healthy() ? this.readiness() : { ready: false, status: "not running" };
        res.writeHead(readiness.ready ? 200 : 503, { "content-type": "application/json" });
        res.end(JSON.stringify(readiness.ready ? { status: "ok" } : { status: readiness.status, ...readiness.detail }));
      } else if (req.url === "/healthz") {
        const ok = healthy();
        res.writeHead(ok ? 200 : 503, { "content-type": "application/json" });
        res.end(JSON.stringify({ status: ok ? "ok" : "not running" }));
      } else {
        res.writeHead(404).end();
      }
    });
    return new Promise((resolve) => server.listen(port, "127.0.0.1", () => resolve(server)));
  }
}
