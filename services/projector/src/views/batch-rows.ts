/**
 * The rows one batch reads and writes. The writer loads the stored rows the batch touches (`Loaded`); the
 * views never change them: the first time a view changes a row, it gets the batch's own copy, and the
 * copies a batch changed are what `changes()` returns, new rows for the writer to save. No I/O.
 */
import type {
  ArtifactRow,
  AttemptRow,
  CardRow,
  DlqRow,
  EventRow,
  ProbeRow,
  ServerTaskRow,
  TaskKeyRow,
  TaskRow,
  ViolationRow,
  WorkerRow,
} from "./rows.ts";
import { statusOf, waitingSince } from "./status.ts";

const sep = "\u0000";
export const serverTaskKey = (correlationId: string, workerId: string, serverTaskId: string) =>
  `${correlationId}${sep}${workerId}${sep}${serverTaskId}`;
export const artifactKey = (correlationId: string, workerId: string, serverTaskId: string, artifactId: string) =>
  `${serverTaskKey(correlationId, workerId, serverTaskId)}${sep}${artifactId}`;
export const eventKey = (correlationId: string, id: string) => `${correlationId}${sep}${id}`;
export const cardKey = (workerId: string, cardHash: string) => `${workerId}${sep}${cardHash}`;
const attemptKey = (correlationId: string, attempt: number) => `${correlationId}${sep}${attempt}`;

/** Stored rows a batch touches, keyed as above. Read-only to the views. */
export interface Loaded {
  tasks: Map<string, TaskRow>;
  attempts: Map<string, AttemptRow[]>;
  serverTasks: Map<string, ServerTaskRow>;
  artifacts: Map<string, ArtifactRow>;
  events: Set<string>;
  workers: Map<string, WorkerRow>;
  cards: Map<string, CardRow>;
  /**
   * Every stored event row of the batch's correlations that the reconciler re-dispatched (a
   * RedispatchCommanded decision stored, or in the batch): their lineage is re-linked from them (relink.ts).
   */
  redispatched: Map<string, EventRow[]>;
}

export const emptyLoaded = (): Loaded => ({
  tasks: new Map(),
  attempts: new Map(),
  serverTasks: new Map(),
  artifacts: new Map(),
  events: new Set(),
  workers: new Map(),
  cards: new Map(),
  redispatched: new Map(),
});

/** What a batch writes: every row new (the batch's own objects), none of them the loaded ones. */
export interface Changes {
  tasks: TaskRow[];
  taskKeys: TaskKeyRow[];
  /** Tasks that existed whose first_at moved earlier: their stored keys must follow. */
  movedTasks: { correlationId: string; firstAt: number }[];
  events: EventRow[];
  attempts: AttemptRow[];
  serverTasks: ServerTaskRow[];
  artifacts: ArtifactRow[];
  violations: ViolationRow[];
  workers: WorkerRow[];
  mentionedWorkers: string[];
  cards: CardRow[];
  probes: ProbeRow[];
  dlq: DlqRow[];
  /**
   * Correlations re-linked whole (relink.ts): their stored attempts, server tasks and artifacts are
   * replaced by the ones above, and their stored observation rows take these attempts.
   */
  relinked: { correlationId: string; eventAttempts: { id: string; attempt: number | null }[] }[];
}

/** One kind of row: the loaded ones, read-only, and the batch's copies of those it changed (or made). */
class Table<R> {
  private readonly own = new Map<string, R>();

  constructor(
    private readonly loaded: ReadonlyMap<string, R>,
    private readonly copy: (row: R) => R,
  ) {}

  get(key: string): R | undefined {
    return this.own.get(key) ?? this.loaded.get(key);
  }

  /** The batch's copy of the row, to change; made by `make` when there is none. */
  change(key: string, make: () => R): R {
    let row = this.own.get(key);
    if (row === undefined) {
      const stored = this.loaded.get(key);
      row = stored === undefined ? make() : this.copy(stored);
      this.own.set(key, row);
    }
    return row;
  }

  /** The rows a predicate picks, the batch's copy where there is one. */
  where(pick: (row: R) => boolean): R[] {
    const rows: R[] = [];
    for (const [key, row] of this.loaded) if (!this.own.has(key) && pick(row)) rows.push(row);
    for (const row of this.own.values()) if (pick(row)) rows.push(row);
    return rows;
  }

  has(key: string): boolean {
    return this.own.has(key);
  }

  /** The rows changed, by key. */
  changed(): R[] {
    return [...this.own.keys()].sort().map((key) => this.own.get(key) as R);
  }
}

export class BatchRows {
  readonly tasks: Table<TaskRow>;
  readonly serverTasks: Table<ServerTaskRow>;
  readonly artifacts: Table<ArtifactRow>;
  readonly workers: Table<WorkerRow>;
  readonly cards: Table<CardRow>;
  /** A correlation's attempts: the batch's copy of the list once one of them changes. */
  private readonly attemptLists = new Map<string, AttemptRow[]>();
  private readonly changedAttempts = new Set<string>();
  private readonly claimed = new Set<string>();
  readonly out = {
    taskKeys: new Map<string, TaskKeyRow>(),
    events: [] as EventRow[],
    violations: [] as ViolationRow[],
    probes: [] as ProbeRow[],
    dlq: [] as DlqRow[],
    /** Workers task observations mention (a bare row is inserted if none exists). */
    mentioned: new Set<string>(),
  };

  constructor(readonly loaded: Readonly<Loaded>) {
    this.tasks = new Table(loaded.tasks, (t) => ({ ...t }));
    this.serverTasks = new Table(loaded.serverTasks, (s) => ({ ...s }));
    this.artifacts = new Table(loaded.artifacts, (a) => ({
      ...a,
      mediaTypes: [...a.mediaTypes],
      partKinds: [...a.partKinds],
      eventIds: [...a.eventIds],
    }));
    this.workers = new Table(loaded.workers, (w) => ({ ...w }));
    this.cards = new Table(loaded.cards, (c) => ({ ...c }));
  }

  /** Claims an event row for this batch; false when it was projected before (a redelivery or a repeated id). */
  claimEvent(correlationId: string, id: string): boolean {
    const key = eventKey(correlationId, id);
    if (this.loaded.events.has(key) || this.claimed.has(key)) return false;
    this.claimed.add(key);
    return true;
  }

  /** A correlation's attempts, read-only (the batch's copies where it changed them). */
  attempts(correlationId: string): readonly AttemptRow[] {
    return this.attemptLists.get(correlationId) ?? this.loaded.attempts.get(correlationId) ?? [];
  }

  /** The batch's copy of an attempt, to change. */
  changeAttempt(correlationId: string, attempt: number): AttemptRow {
    const row = this.ownAttempts(correlationId).find((a) => a.attempt === attempt) as AttemptRow;
    this.changedAttempts.add(attemptKey(correlationId, attempt));
    return row;
  }

  addAttempt(row: AttemptRow): AttemptRow {
    const list = this.ownAttempts(row.correlationId);
    list.push(row);
    this.changedAttempts.add(attemptKey(row.correlationId, row.attempt));
    return row;
  }

  private ownAttempts(correlationId: string): AttemptRow[] {
    let list = this.attemptLists.get(correlationId);
    if (list === undefined) {
      list = (this.loaded.attempts.get(correlationId) ?? []).map((a) => ({ ...a }));
      this.attemptLists.set(correlationId, list);
    }
    return list;
  }

  key(kind: TaskKeyRow["kind"], value: string | null, correlationId: string): void {
    if (value === null || value === "") return;
    this.out.taskKeys.set(`${kind}${sep}${value}${sep}${correlationId}`, { kind, value, correlationId, firstAt: 0 });
  }

  /** The rows the batch changed, made, or emitted: new rows, for the writer to save. */
  changes(): Changes {
    const tasks = this.tasks.changed().map((t) => {
      const status = statusOf(t);
      return { ...t, status, waitingSince: waitingSince({ ...t, status }) };
    });
    const firstAt = new Map(tasks.map((t) => [t.correlationId, t.firstAt]));
    const attempts = [...this.changedAttempts].sort().map((k) => {
      const [correlationId, n] = k.split(sep) as [string, string];
      return this.attempts(correlationId).find((a) => a.attempt === Number(n)) as AttemptRow;
    });
    const workers = this.workers.changed();
    return {
      tasks,
      taskKeys: [...this.out.taskKeys.values()].map((k) => ({
        ...k,
        firstAt: firstAt.get(k.correlationId) ?? this.loaded.tasks.get(k.correlationId)?.firstAt ?? 0,
      })),
      movedTasks: tasks
        .filter((t) => {
          const stored = this.loaded.tasks.get(t.correlationId);
          return stored !== undefined && stored.firstAt !== t.firstAt;
        })
        .map((t) => ({ correlationId: t.correlationId, firstAt: t.firstAt })),
      events: this.out.events,
      attempts,
      serverTasks: this.serverTasks.changed(),
      artifacts: this.artifacts.changed(),
      violations: this.out.violations,
      workers,
      mentionedWorkers: [...this.out.mentioned].filter((w) => !this.workers.has(w)).sort(),
      cards: this.cards.changed(),
      probes: this.out.probes,
      dlq: this.out.dlq,
      relinked: [],
    };
  }
}
