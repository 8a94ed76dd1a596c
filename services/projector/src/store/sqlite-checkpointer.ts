/**
 * The WAL checkpoint of a SQLite store, on its own connection and thread. SQLite runs its automatic
 * checkpoint inside the commit that crosses 1,000 WAL pages: it copies the WAL into the database file
 * and fsyncs it on the writer's connection, so one batch in about four waited for it on the projector's
 * only thread (a fifth of its time, BENCHMARKS.md). Here the writer's automatic checkpoint is off, and
 * after commits a worker thread runs a PASSIVE checkpoint on a connection of its own: it never blocks the
 * writer nor a reader, and it copies what no reader still needs, so the writer starts the WAL over from
 * its beginning once everything in it was copied.
 *
 * A PASSIVE checkpoint copies what was committed before it started; the WAL starts over only when a
 * transaction begins after everything in it was copied, which a checkpoint that ends while the next
 * transaction runs never allows. So once a checkpoint reports a WAL of `longWalPages` or more, the
 * writer's next transaction first waits (asynchronously, the event loop free, at most `settleMs`) for a
 * checkpoint that copies all of it, and then starts the WAL over. At most one checkpoint per `everyMs` otherwise.
 * Should the thread fail or exit, the writer's own automatic checkpoint is switched back on, so the WAL
 * never grows without bound.
 */
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import type Database from "better-sqlite3";

/** SQLite's default threshold of the automatic checkpoint, in pages: what the writer falls back to. */
export const autoCheckpointPages = 1_000;

/** A checkpoint's outcome, as `PRAGMA wal_checkpoint` reports it. */
export interface Checkpointed {
  /** 1 when it could not run to the end (another checkpoint held the lock). */
  busy: number;
  /** Frames in the WAL. */
  log: number;
  /** Frames copied into the database file. */
  checkpointed: number;
}

export interface CheckpointerOptions {
  /** At most one checkpoint per this many milliseconds while commits come (100 by default). */
  everyMs?: number;
  /** A WAL this long (pages) that a checkpoint could not copy to its end makes the next transaction wait (1,000 by default). */
  longWalPages?: number;
  /**
   * The longest such a wait lasts, in milliseconds (1,000 by default); the transaction then begins all the
   * same, and no transaction waits again for ten times as long.
   */
  settleMs?: number;
  /** Called after each checkpoint (tests, metrics). */
  onCheckpoint?: (result: Checkpointed) => void;
  /** Called once if the thread fails (the writer checkpoints itself from then on). */
  onFailure?: (error: Error) => void;
}

/** The worker's code: plain JavaScript, so that it runs the same from `src/` (tsx) and from `dist/`. */
const workerSource = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.module);
const db = new Database(workerData.location, { timeout: 15000 });
db.pragma("synchronous = NORMAL");
let timer;
let closing = false;
const checkpoint = () => {
  timer = undefined;
  if (closing) return;
  const [result] = db.pragma("wal_checkpoint(PASSIVE)");
  parentPort.postMessage({ type: "checkpointed", result });
};
parentPort.on("message", (message) => {
  if (message === "close") {
    closing = true;
    clearTimeout(timer);
    db.close();
    parentPort.close();
  } else if (message === "now") {
    clearTimeout(timer);
    checkpoint();
  } else if (timer === undefined) {
    timer = setTimeout(checkpoint, workerData.everyMs);
  }
});
`;

export class Checkpointer {
  private readonly worker: Worker;
  private failed = false;
  private closed = false;
  private readonly exited: Promise<void>;
  /** The last checkpoint's report, until a transaction began after it. */
  private last: Checkpointed | undefined;
  /** Who waits for the next report. */
  private readonly waiting = new Set<(result: Checkpointed | undefined) => void>();
  private readonly longWalPages: number;
  private readonly settleMs: number;
  /** After a wait that ran out (a long read pinned the WAL), none until then: writes are not held up again and again. */
  private patientUntil = 0;

  constructor(writer: Database.Database, location: string, options: CheckpointerOptions = {}) {
    this.longWalPages = options.longWalPages ?? autoCheckpointPages;
    this.settleMs = options.settleMs ?? 1_000;
    writer.pragma("wal_autocheckpoint = 0");
    this.worker = new Worker(workerSource, {
      eval: true,
      workerData: {
        module: createRequire(import.meta.url).resolve("better-sqlite3"),
        location,
        everyMs: options.everyMs ?? 100,
      },
    });
    // The thread never keeps a process alive on its own (a store left open in a test, a CLI command).
    this.worker.unref();
    const fail = (error: Error) => {
      if (this.failed || this.closed) return;
      this.failed = true;
      if (writer.open) writer.pragma(`wal_autocheckpoint = ${autoCheckpointPages}`);
      this.wake(undefined);
      options.onFailure?.(error);
    };
    this.worker.on("message", (message: { type: string; result: Checkpointed }) => {
      if (message.type !== "checkpointed") return;
      this.last = message.result;
      this.wake(message.result);
      options.onCheckpoint?.(message.result);
    });
    this.worker.on("error", fail);
    this.exited = new Promise((resolve) => {
      this.worker.on("exit", (code) => {
        fail(new Error(`the checkpoint thread exited with code ${code}`));
        resolve();
      });
    });
  }

  /** Whether checkpoints run on the thread (false once it failed: the writer checkpoints itself). */
  get running(): boolean {
    return !this.failed && !this.closed;
  }

  private wake(result: Checkpointed | undefined): void {
    for (const resolve of this.waiting) resolve(result);
    this.waiting.clear();
  }

  private next(): Promise<Checkpointed | undefined> {
    return new Promise((resolve) => this.waiting.add(resolve));
  }

  /**
   * Before a transaction begins: when the last checkpoint reported a long WAL, waits (at most `settleMs`)
   * for a checkpoint that copies all of it with no transaction running, so that this one starts the WAL over.
   */
  async beforeTransaction(): Promise<void> {
    const last = this.last;
    this.last = undefined;
    if (!this.running || last === undefined || last.log < this.longWalPages || Date.now() < this.patientUntil) return;
    const deadline = Date.now() + this.settleMs;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), this.settleMs);
    });
    try {
      while (this.running && Date.now() < deadline) {
        const report = this.next();
        this.worker.postMessage("now");
        const result = await Promise.race([report, timedOut]);
        if (result === undefined) return;
        if (result === "timeout") break;
        if (result.busy === 0 && result.checkpointed >= result.log) {
          this.last = undefined;
          return;
        }
        // A reader still holds frames the checkpoint may not copy yet: ask again shortly.
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      this.patientUntil = Date.now() + 10 * this.settleMs;
    } finally {
      clearTimeout(timer);
    }
  }

  /** After a commit: a checkpoint within `everyMs`, unless one is due already. */
  committed(): void {
    if (this.running) this.worker.postMessage("commit");
  }

  /** Ends the thread (its connection closed) before the writer closes, which then checkpoints what is left. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.wake(undefined);
    if (this.failed) return;
    this.worker.postMessage("close");
    const timer = setTimeout(() => void this.worker.terminate(), 5_000);
    await this.exited;
    clearTimeout(timer);
  }
}
