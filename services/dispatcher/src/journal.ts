/**
 * The dispatcher's memory, one SQLite file (WAL, synchronous=FULL: a status change is on disk before
 * the dispatcher acts on it):
 *
 * - **command**: one row per decision id — what was done about it. A status is written *before* the
 *   step it announces, and the command's Kafka offset is committed only after the row reached a final
 *   status, so a redelivered or replayed command finds its row and is never carried out twice:
 *
 *       started ──► sending ──► dispatched ──► done
 *          │           │            (observations kept until the ledger acknowledged them)
 *          └──► failed, blocked     └──► failed, abandoned (outcome unknown)
 *
 * - **parked_canary**: the probe tasks left in an interrupted state, re-polled until they are lost.
 * - **rejected_record**: command records refused as poison, with their coordinates.
 *
 * An operator may ask for a `failed` recording (ingest refused the observations) or a `blocked` command
 * (its worker or skill was not configured) to be tried again (`requestRetry`): the first goes back to
 * `dispatched`, the second to `retry`, which the dispatcher carries out from the command kept in the row.
 *
 * Finished rows leave after a retention (`prune`): a command redelivered within it is still found.
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import type { ObservationInput } from "@a2a-ledger/ingest-client";
import type { TaskState } from "@a2a-ledger/schemas";

export type CommandKind = "RedispatchCommanded" | "ProbeRequested";
/** started: nothing sent yet; sending: the worker may have received something; dispatched: done, observations not yet acknowledged by the ledger. */
export type CommandStatus =
  | "started"
  | "sending"
  | "dispatched"
  | "done"
  | "failed"
  | "blocked"
  | "abandoned"
  | "retry";
export const finalStatuses: ReadonlySet<CommandStatus> = new Set(["done", "failed", "blocked", "abandoned"]);

export interface CommandRow {
  decisionId: string;
  kind: CommandKind;
  correlationId: string;
  workerId: string | null;
  status: CommandStatus;
  /** Why it failed, was blocked or abandoned; the alert code first. */
  detail: string | null;
  /** The observations to record while status is dispatched. */
  observations: ObservationInput[];
  serverTaskIds: string[];
  source: string;
  startedAt: number;
  updatedAt: number;
  deliveries: number;
  /** The command as decoded, kept so that it can be carried out again at an operator's request; null in rows older than that. */
  command: unknown;
}

/** Alerts after which nothing was sent and the command may be carried out again once the configuration is fixed. */
export const retriableBlocks = ["DISPATCHER_WORKER_NOT_CONFIGURED", "DISPATCHER_SKILL_NOT_CONFIGURED"] as const;

export type RetryRequest = { ok: true; status: "dispatched" | "retry" } | { ok: false; reason: string };

export type CanaryStatus = "parked" | "lost" | "ended" | "superseded";

export interface ParkedCanaryRow {
  workerId: string;
  serverTaskId: string;
  skillId: string | null;
  state: TaskState;
  cardHash: string;
  correlationId: string;
  decisionId: string;
  parkedAt: number;
  status: CanaryStatus;
  lastPolledAt: number | null;
  lastAnswer: string | null;
}

const schema = `
CREATE TABLE IF NOT EXISTS command (
  decision_id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  correlation_id TEXT NOT NULL,
  worker_id TEXT,
  status TEXT NOT NULL,
  detail TEXT,
  observations TEXT NOT NULL DEFAULT '[]',
  server_task_ids TEXT NOT NULL DEFAULT '[]',
  source TEXT NOT NULL,
  started_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  deliveries INTEGER NOT NULL DEFAULT 1,
  command TEXT
);
CREATE INDEX IF NOT EXISTS command_status ON command (status);
CREATE TABLE IF NOT EXISTS parked_canary (
  worker_id TEXT NOT NULL,
  server_task_id TEXT NOT NULL,
  skill_id TEXT,
  state TEXT NOT NULL,
  card_hash TEXT NOT NULL,
  correlation_id TEXT NOT NULL,
  decision_id TEXT NOT NULL,
  parked_at INTEGER NOT NULL,
  status TEXT NOT NULL,
  last_polled_at INTEGER,
  last_answer TEXT,
  PRIMARY KEY (worker_id, server_task_id)
);
CREATE TABLE IF NOT EXISTS rejected_record (
  topic TEXT NOT NULL,
  partition INTEGER NOT NULL,
  "offset" TEXT NOT NULL,
  reason TEXT NOT NULL,
  detail TEXT NOT NULL,
  preview TEXT,
  rejected_at INTEGER NOT NULL,
  PRIMARY KEY (topic, partition, "offset")
);
`;

type Row = Record<string, unknown>;

function commandOf(row: Row): CommandRow {
  return {
    decisionId: String(row.decision_id),
    kind: row.kind as CommandKind,
    correlationId: String(row.correlation_id),
    workerId: row.worker_id === null ? null : String(row.worker_id),
    status: row.status as CommandStatus,
    detail: row.detail === null ? null : String(row.detail),
    observations: JSON.parse(String(row.observations)) as ObservationInput[],
    serverTaskIds: JSON.parse(String(row.server_task_ids)) as string[],
    source: String(row.source),
    startedAt: Number(row.started_at),
    updatedAt: Number(row.updated_at),
    deliveries: Number(row.deliveries),
    command: row.command === null || row.command === undefined ? null : (JSON.parse(String(row.command)) as unknown),
  };
}

function canaryOf(row: Row): ParkedCanaryRow {
  return {
    workerId: String(row.worker_id),
    serverTaskId: String(row.server_task_id),
    skillId: row.skill_id === null ? null : String(row.skill_id),
    state: row.state as TaskState,
    cardHash: String(row.card_hash),
    correlationId: String(row.correlation_id),
    decisionId: String(row.decision_id),
    parkedAt: Number(row.parked_at),
    status: row.status as CanaryStatus,
    lastPolledAt: row.last_polled_at === null ? null : Number(row.last_polled_at),
    lastAnswer: row.last_answer === null ? null : String(row.last_answer),
  };
}

export class Journal {
  private readonly db: Database.Database;

  constructor(
    readonly path: string,
    private readonly now: () => number = Date.now,
  ) {
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path);
    this.db.pragma("journal_mode = WAL");
    this.db.pragma("synchronous = FULL");
    this.db.pragma("busy_timeout = 5000");
    this.db.exec(schema);
    // A journal written before commands were kept in their rows.
    const columns = (this.db.prepare("SELECT name FROM pragma_table_info('command')").all() as { name: string }[]).map(
      (c) => c.name,
    );
    if (!columns.includes("command")) this.db.exec("ALTER TABLE command ADD COLUMN command TEXT");
    this.db.exec("CREATE INDEX IF NOT EXISTS command_updated ON command (updated_at)");
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  get(decisionId: string): CommandRow | undefined {
    const row = this.db.prepare("SELECT * FROM command WHERE decision_id = ?").get(decisionId) as Row | undefined;
    return row === undefined ? undefined : commandOf(row);
  }

  /**
   * The command's row: a new one in status `started`, or — for a redelivery — the existing row with its
   * delivery count raised (`isNew` false). One transaction, so two deliveries can never both be new.
   */
  begin(
    command: { decisionId: string; kind: CommandKind; correlationId: string; workerId: string | null },
    source: string,
    whole: unknown = null,
  ): { row: CommandRow; isNew: boolean } {
    return this.db.transaction(() => {
      const existing = this.get(command.decisionId);
      if (existing !== undefined) {
        this.db.prepare("UPDATE command SET deliveries = deliveries + 1 WHERE decision_id = ?").run(command.decisionId);
        return { row: { ...existing, deliveries: existing.deliveries + 1 }, isNew: false };
      }
      const at = this.now();
      this.db
        .prepare(
          "INSERT INTO command (decision_id, kind, correlation_id, worker_id, status, source, started_at, updated_at, command) VALUES (?, ?, ?, ?, 'started', ?, ?, ?, ?)",
        )
        .run(
          command.decisionId,
          command.kind,
          command.correlationId,
          command.workerId,
          source,
          at,
          at,
          whole === null ? null : JSON.stringify(whole),
        );
      return { row: this.get(command.decisionId) as CommandRow, isNew: true };
    })();
  }

  /**
   * Compare-and-set into `sending`, for the delivery that began it (`begin`'s row.deliveries): true when
   * this delivery is still the command's latest and the command is not yet sent or settled. Two dispatchers
   * sharing the journal that both got the command (a rebalance redelivered it while the first still ran)
   * both pass `begin`, but only the latest delivery may send; the earlier one learns it here, before
   * anything reaches the worker.
   */
  claimSending(decisionId: string, delivery: number): boolean {
    const changed = this.db
      .prepare(
        "UPDATE command SET status = 'sending', updated_at = ? WHERE decision_id = ? AND deliveries = ? AND status IN ('started', 'retry', 'sending')",
      )
      .run(this.now(), decisionId, delivery).changes;
    return changed === 1;
  }

  /** Moves a command to `status`; `observations` and `serverTaskIds` are replaced when given. */
  mark(
    decisionId: string,
    status: CommandStatus,
    extra: { detail?: string | null; observations?: ObservationInput[]; serverTaskIds?: string[] } = {},
  ): void {
    const current = this.get(decisionId);
    if (current === undefined) throw new Error(`no journal row for decision ${decisionId}`);
    this.db
      .prepare(
        "UPDATE command SET status = ?, detail = ?, observations = ?, server_task_ids = ?, updated_at = ? WHERE decision_id = ?",
      )
      .run(
        status,
        extra.detail === undefined ? current.detail : extra.detail,
        JSON.stringify(extra.observations ?? (status === "done" ? [] : current.observations)),
        JSON.stringify(extra.serverTaskIds ?? current.serverTaskIds),
        this.now(),
        decisionId,
      );
  }

  /**
   * An operator's retry: a `failed` row whose observations ingest refused goes back to `dispatched` (they
   * are sent again, with the same event ids); a row `blocked` because its worker or skill was not
   * configured goes to `retry` (carried out again from the kept command). Anything else is refused, with
   * the reason: a re-dispatch that may have reached a worker is never sent twice.
   */
  requestRetry(decisionId: string): RetryRequest {
    return this.db.transaction((): RetryRequest => {
      const row = this.get(decisionId);
      if (row === undefined) return { ok: false, reason: "no such decision id in the journal" };
      const code = row.detail?.split(":", 1)[0] ?? "";
      if (row.status === "failed" && code === "DISPATCHER_RECORDING_REJECTED") {
        this.mark(decisionId, "dispatched", { detail: `retry requested; was ${row.detail ?? ""}`.slice(0, 2_000) });
        return { ok: true, status: "dispatched" };
      }
      if (row.status === "blocked" && (retriableBlocks as readonly string[]).includes(code)) {
        if (row.command === null)
          return { ok: false, reason: "the row predates kept commands: the command itself is not in the journal" };
        this.mark(decisionId, "retry", { detail: `retry requested; was ${row.detail ?? ""}`.slice(0, 2_000) });
        return { ok: true, status: "retry" };
      }
      return {
        ok: false,
        reason: `status ${row.status}${row.detail === null ? "" : ` (${code})`}: only a failed recording (DISPATCHER_RECORDING_REJECTED) or a command blocked by ${retriableBlocks.join(" or ")} can be retried`,
      };
    })();
  }

  /** Every row an operator's retry may apply to: failed recordings and commands blocked by configuration. */
  retriable(): CommandRow[] {
    const rows = (
      this.db
        .prepare("SELECT * FROM command WHERE status IN ('failed', 'blocked') ORDER BY updated_at, rowid")
        .all() as Row[]
    ).map(commandOf);
    return rows.filter((r) => {
      const code = r.detail?.split(":", 1)[0] ?? "";
      return r.status === "failed"
        ? code === "DISPATCHER_RECORDING_REJECTED"
        : (retriableBlocks as readonly string[]).includes(code) && r.command !== null;
    });
  }

  /** Takes a `retry` row to carry it out (`started`); false when another took it first. */
  claimRetry(decisionId: string): boolean {
    return (
      this.db
        .prepare("UPDATE command SET status = 'started', updated_at = ? WHERE decision_id = ? AND status = 'retry'")
        .run(this.now(), decisionId).changes === 1
    );
  }

  /** Commands an operator asked to carry out again. */
  retryRequested(): CommandRow[] {
    return (
      this.db.prepare("SELECT * FROM command WHERE status = 'retry' ORDER BY updated_at, rowid").all() as Row[]
    ).map(commandOf);
  }

  /**
   * Removes what is finished and older than `retentionMs` (by its last change): final command rows,
   * canaries no longer parked, rejected records. Rows still in progress and parked canaries stay.
   */
  prune(retentionMs: number): { commands: number; canaries: number; rejected: number } {
    const before = this.now() - retentionMs;
    return this.db.transaction(() => ({
      commands: this.db
        .prepare("DELETE FROM command WHERE status IN ('done', 'failed', 'blocked', 'abandoned') AND updated_at < ?")
        .run(before).changes,
      canaries: this.db
        .prepare("DELETE FROM parked_canary WHERE status <> 'parked' AND COALESCE(last_polled_at, parked_at) < ?")
        .run(before).changes,
      rejected: this.db.prepare("DELETE FROM rejected_record WHERE rejected_at < ?").run(before).changes,
    }))();
  }

  /** Commands whose observations still wait for the ledger's acknowledgement. */
  awaitingRecording(): CommandRow[] {
    return (
      this.db.prepare("SELECT * FROM command WHERE status = 'dispatched' ORDER BY updated_at").all() as Row[]
    ).map(commandOf);
  }

  countByStatus(): Record<string, number> {
    const rows = this.db.prepare("SELECT status, COUNT(*) AS n FROM command GROUP BY status").all() as {
      status: string;
      n: number;
    }[];
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  }

  /** Parks a canary; earlier canaries of the same worker and skill that are still parked are superseded. */
  park(canary: Omit<ParkedCanaryRow, "status" | "lastPolledAt" | "lastAnswer">): void {
    this.db.transaction(() => {
      this.db
        .prepare(
          "UPDATE parked_canary SET status = 'superseded' WHERE worker_id = ? AND skill_id IS ? AND status = 'parked'",
        )
        .run(canary.workerId, canary.skillId);
      this.db
        .prepare(
          "INSERT OR REPLACE INTO parked_canary (worker_id, server_task_id, skill_id, state, card_hash, correlation_id, decision_id, parked_at, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'parked')",
        )
        .run(
          canary.workerId,
          canary.serverTaskId,
          canary.skillId,
          canary.state,
          canary.cardHash,
          canary.correlationId,
          canary.decisionId,
          canary.parkedAt,
        );
    })();
  }

  parkedCanaries(): ParkedCanaryRow[] {
    return (
      this.db.prepare("SELECT * FROM parked_canary WHERE status = 'parked' ORDER BY parked_at").all() as Row[]
    ).map(canaryOf);
  }

  canaries(): ParkedCanaryRow[] {
    return (this.db.prepare("SELECT * FROM parked_canary ORDER BY parked_at").all() as Row[]).map(canaryOf);
  }

  canaryPolled(workerId: string, serverTaskId: string, answer: string, status: CanaryStatus = "parked"): void {
    this.db
      .prepare(
        "UPDATE parked_canary SET last_polled_at = ?, last_answer = ?, status = ? WHERE worker_id = ? AND server_task_id = ?",
      )
      .run(this.now(), answer, status, workerId, serverTaskId);
  }

  reject(
    source: { topic: string; partition: number; offset: string },
    reason: string,
    detail: string,
    value: Buffer | null,
  ): void {
    this.db
      .prepare(
        'INSERT OR IGNORE INTO rejected_record (topic, partition, "offset", reason, detail, preview, rejected_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        source.topic,
        source.partition,
        source.offset,
        reason,
        detail.slice(0, 2_000),
        value === null ? null : value.subarray(0, 512).toString("base64"),
        this.now(),
      );
  }

  rejected(): { topic: string; partition: number; offset: string; reason: string; detail: string }[] {
    return this.db
      .prepare('SELECT topic, partition, "offset" AS offset, reason, detail FROM rejected_record ORDER BY rejected_at')
      .all() as never;
  }
}
