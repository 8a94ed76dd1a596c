/**
 * The spool: the proxy's observations that wait for the ledger, on disk, so that a proxy killed with
 * observations in hand loses none of them. One directory per proxy, holding append-only segment files
 * (`<first seq>.seg`, records as spool-record.ts frames them) and a lock file naming the process that owns it.
 *
 * - Every observation is appended with the next sequence number; the records offered while a write is
 *   under way are written together and fsynced once (`kept()` resolves when what was appended before it
 *   is on disk).
 * - When the ledger acknowledged observations, an acknowledgement record says "everything up to seq is
 *   done"; a segment whose observations are all done is deleted once a newer segment is being written
 *   (segments roll at `segmentBytes`).
 * - At start every segment is read in order: the observations after the last acknowledgement are handed
 *   back, with their sequence numbers, in the order they were seen (the same objects: the same eventIds
 *   and payloads). A record cut short or failing its checksum ends its segment's reading (a crash tears
 *   only the last one); it is counted and logged, never a reason not to start. New records go to a new
 *   segment.
 * - A write that fails (disk full, I/O error) marks the spool failing until a write succeeds again; the
 *   records of that write stay in memory (they are sent, but would not survive a crash) and writing
 *   continues in a new segment. A failing spool does not hammer the disk: the first retry comes at once,
 *   the next ones after a backoff that doubles from `retryInitialMs` up to `retryMaxMs`; records offered
 *   in between are not written (memory only, as those of the failed write), and at most one new segment
 *   is started per attempt (the empty ones are deleted). With nothing to write, the retry probes the disk
 *   with a small file of its own, so the spool recovers by itself when space returns.
 * - Every file-system call goes through `SpoolFs` (node:fs by default), so that a test can make the disk
 *   fail and come back.
 */
import {
  closeSync,
  fdatasync,
  fsync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  unlinkSync,
  write,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import type { ObservationInput } from "@a2a-ledger/ingest-client";
import type { Logger } from "@a2a-ledger/logging";
import { decodeSegment, encodeRecord } from "./spool-record.ts";

const writeAsync = promisify(write);
const fdatasyncAsync = promisify(fdatasync);
const fsyncAsync = promisify(fsync);

/** The file-system calls the spool makes once open (reading at start and the lock use node:fs directly). */
export interface SpoolFs {
  openSync(path: string, flags: "a" | "r" | "w"): number;
  closeSync(fd: number): void;
  /** Writes `length` bytes of `buffer` from `offset`; resolves with how many were written. */
  write(fd: number, buffer: Buffer, offset: number, length: number): Promise<number>;
  fdatasync(fd: number): Promise<void>;
  fsync(fd: number): Promise<void>;
  unlinkSync(path: string): void;
}

export const nodeSpoolFs: SpoolFs = {
  openSync: (path, flags) => openSync(path, flags),
  closeSync: (fd) => closeSync(fd),
  write: async (fd, buffer, offset, length) => (await writeAsync(fd, buffer, offset, length)).bytesWritten,
  fdatasync: (fd) => fdatasyncAsync(fd),
  fsync: (fd) => fsyncAsync(fd),
  unlinkSync: (path) => unlinkSync(path),
};

export interface SpoolEntry {
  seq: number;
  /** Bytes of its record on disk. */
  bytes: number;
  observation: ObservationInput;
}

export interface SpoolMetricsSink {
  /** A record found bad while reading at start (torn: the last one of a segment; corrupt: anywhere else). */
  badRecord(kind: "torn" | "corrupt"): void;
  writeError(): void;
  failing(failing: boolean): void;
  fsyncSeconds(seconds: number): void;
  diskBytes(bytes: number): void;
}

export interface SpoolOptions {
  dir: string;
  /** A segment rolls once it holds this many bytes (default 8 MiB). */
  segmentBytes?: number;
  log: Logger;
  metrics: SpoolMetricsSink;
  /** After failed writes, the retry waits from this (default 100 ms), doubling up to `retryMaxMs` (default 5 s); the first retry is at once. */
  retryInitialMs?: number;
  retryMaxMs?: number;
  fs?: SpoolFs;
}

/** The spool directory cannot be used: not creatable or readable, or held by another live proxy. */
export class SpoolUnavailableError extends Error {
  override name = "SpoolUnavailableError";
}

export class SpoolLockedError extends SpoolUnavailableError {
  override name = "SpoolLockedError";
}

interface Segment {
  firstSeq: number;
  path: string;
  /** The highest observation seq written into it; null while it holds none. */
  lastSeq: number | null;
  bytes: number;
}

interface Pending {
  record: Buffer;
  seq: number | null;
}

const segmentName = (firstSeq: number): string => `${String(firstSeq).padStart(16, "0")}.seg`;
const segmentPattern = /^(\d{16})\.seg$/;
const lockName = "spool.lock";
/** The file a failing spool writes, fsyncs and deletes to learn whether the disk takes writes again. */
const probeName = "spool.probe";

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Takes the directory's lock file, or throws SpoolLockedError when a live process holds it. */
function lock(dir: string): void {
  const path = join(dir, lockName);
  try {
    writeFileSync(path, String(process.pid), { flag: "wx" });
    return;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
  }
  const holder = Number(readFileSync(path, "utf8").trim());
  if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && isAlive(holder)) {
    throw new SpoolLockedError(
      `the spool ${dir} is in use by process ${holder}: each proxy needs its own A2A_LEDGER_PROXY_SPOOL_DIR`,
    );
  }
  // A lock left by a process that is gone (a crash): taken over.
  writeFileSync(path, String(process.pid));
}

export class ObservationSpool {
  private readonly segments: Segment[] = [];
  private active!: Segment;
  private fd = -1;
  private nextSeq: number;
  private acked: number;
  private pending: Pending[] = [];
  private appended = 0;
  private written = 0;
  private waiters: { target: number; resolve: () => void }[] = [];
  private flushing: Promise<void> | null = null;
  private failingSince: number | null = null;
  /** Consecutive failed attempts, and when the next one may be made. */
  private failures = 0;
  private retryAt = 0;
  private retryTimer: NodeJS.Timeout | null = null;
  /** The active segment may end in part of a record: the next attempt starts a new one. */
  private needsRoll = false;
  private closed = false;
  private readonly segmentBytes: number;
  private readonly fs: SpoolFs;

  /** Opens (creating) the spool directory, takes its lock, and reads back what the last run left unsent. */
  static open(options: SpoolOptions): { spool: ObservationSpool; replayed: SpoolEntry[] } {
    let names: string[];
    try {
      mkdirSync(options.dir, { recursive: true });
      lock(options.dir);
      names = readdirSync(options.dir);
    } catch (e) {
      if (e instanceof SpoolUnavailableError) throw e;
      throw new SpoolUnavailableError(
        `the spool directory ${options.dir} cannot be used (A2A_LEDGER_PROXY_SPOOL_DIR): ${(e as Error).message}`,
      );
    }
    const found = names
      .map((name) => segmentPattern.exec(name))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => ({ firstSeq: Number(m[1]), path: join(options.dir, m[0]) }))
      .sort((a, b) => a.firstSeq - b.firstSeq);
    const observations = new Map<number, SpoolEntry>();
    const segments: Segment[] = [];
    let acked = -1;
    let maxSeq = -1;
    found.forEach(({ firstSeq, path }, index) => {
      let bytes: Buffer;
      try {
        bytes = readFileSync(path);
      } catch (e) {
        // Not a file that can be read (a directory, no permission): left alone, reported, not replayed.
        options.metrics.badRecord("corrupt");
        options.log.error(
          { segment: path, err: (e as Error).message },
          "a spool segment cannot be read: it is left as it is and not replayed",
        );
        return;
      }
      const decoded = decodeSegment(bytes);
      let lastSeq: number | null = null;
      for (const { body, bytes: size } of decoded.records) {
        if (body.kind === "ack") acked = Math.max(acked, body.seq);
        else {
          observations.set(body.seq, { seq: body.seq, bytes: size, observation: body.observation });
          lastSeq = Math.max(lastSeq ?? -1, body.seq);
        }
        maxSeq = Math.max(maxSeq, body.seq);
      }
      if (decoded.stoppedAt !== null) {
        const last = index === found.length - 1;
        const kind = last ? "torn" : "corrupt";
        options.metrics.badRecord(kind);
        const at = {
          segment: path,
          offset: decoded.stoppedAt.offset,
          reason: decoded.stoppedAt.reason,
          skippedBytes: bytes.length - decoded.stoppedAt.offset,
        };
        if (last) options.log.warn(at, "the spool's last record was torn (a crash while writing): skipped");
        else options.log.error(at, "a spool segment holds a bad record: the rest of that segment is skipped");
      }
      segments.push({ firstSeq, path, lastSeq, bytes: bytes.length });
    });
    const replayed = [...observations.values()].filter((e) => e.seq > acked).sort((a, b) => a.seq - b.seq);
    const spool = new ObservationSpool(options, segments, maxSeq + 1, acked);
    if (replayed.length > 0)
      options.log.info(
        { dir: options.dir, observations: replayed.length, fromSeq: replayed[0]?.seq, toSeq: replayed.at(-1)?.seq },
        "replaying the observations the last run left in the spool",
      );
    return { spool, replayed };
  }

  private constructor(
    private readonly options: SpoolOptions,
    segments: Segment[],
    nextSeq: number,
    acked: number,
  ) {
    this.segmentBytes = options.segmentBytes ?? 8 * 1024 * 1024;
    this.fs = options.fs ?? nodeSpoolFs;
    this.segments.push(...segments);
    this.nextSeq = nextSeq;
    this.acked = acked;
    this.trim();
    this.roll();
  }

  /** Whether the last write failed (what was appended since may not survive a crash). */
  get failing(): boolean {
    return this.failingSince !== null;
  }

  get diskBytes(): number {
    return (
      this.segments.reduce((sum, s) => sum + s.bytes, 0) + this.pending.reduce((sum, p) => sum + p.record.length, 0)
    );
  }

  /** Appends an observation; it is on disk once `kept()` resolves. */
  append(observation: ObservationInput): SpoolEntry {
    if (this.closed) throw new Error("the spool is closed");
    const seq = this.nextSeq++;
    const record = encodeRecord({ kind: "observation", seq, observation });
    this.enqueue({ record, seq });
    return { seq, bytes: record.length, observation };
  }

  /** Everything up to `seq` was acknowledged by the ledger (or dropped for good): never needed again. */
  acknowledge(seq: number): void {
    if (seq <= this.acked || this.closed) return;
    this.acked = seq;
    this.enqueue({ record: encodeRecord({ kind: "ack", seq }), seq: null });
  }

  /** Resolves once every record appended so far is on disk (or its write failed: see `failing`). */
  kept(): Promise<void> {
    if (this.written >= this.appended) return Promise.resolve();
    const target = this.appended;
    return new Promise((resolve) => this.waiters.push({ target, resolve }));
  }

  /** Writes what is pending and closes; a spool whose every observation was acknowledged is left empty. */
  async close(): Promise<void> {
    if (this.closed) return;
    while (this.flushing !== null) await this.flushing;
    this.closed = true;
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.closeQuietly(this.fd);
    const allDone = this.segments.every((s) => s.lastSeq === null || s.lastSeq <= this.acked);
    if (allDone) for (const s of this.segments.splice(0)) rmSync(s.path, { force: true });
    rmSync(join(this.options.dir, lockName), { force: true });
    this.options.metrics.diskBytes(this.diskBytes);
  }

  private enqueue(pending: Pending): void {
    this.pending.push(pending);
    this.appended++;
    // Records offered in the same turn of the event loop go out in one write and one fsync.
    this.flushing ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.flush());
  }

  private async flush(): Promise<void> {
    while (this.pending.length > 0) {
      if (this.failingSince !== null && Date.now() < this.retryAt) {
        // Backing off after failed writes: the disk is left alone, these records stay in memory only.
        this.done(this.pending.splice(0).length);
        continue;
      }
      if (this.needsRoll && !this.rollForRetry()) {
        this.done(this.pending.splice(0).length);
        continue;
      }
      const batch = this.pending;
      this.pending = [];
      const bytes = Buffer.concat(batch.map((p) => p.record));
      const started = process.hrtime.bigint();
      try {
        let offset = 0;
        while (offset < bytes.length) offset += await this.fs.write(this.fd, bytes, offset, bytes.length - offset);
        await this.fs.fdatasync(this.fd);
        this.options.metrics.fsyncSeconds(Number(process.hrtime.bigint() - started) / 1e9);
        this.active.bytes += bytes.length;
        for (const p of batch) if (p.seq !== null) this.active.lastSeq = Math.max(this.active.lastSeq ?? -1, p.seq);
        this.recovered();
      } catch (e) {
        // The failed write may have left part of a record: later records go to a fresh segment.
        this.active.bytes += bytes.length;
        this.needsRoll = true;
        this.failed(e, batch.length);
      }
      this.done(batch.length);
      if (!this.needsRoll && this.active.bytes >= this.segmentBytes) this.rollForRetry();
      this.trim();
      this.options.metrics.diskBytes(this.diskBytes);
    }
    this.flushing = null;
  }

  /** `count` more records were written, or given up on: the `kept()` they were waited for resolves. */
  private done(count: number): void {
    this.written += count;
    this.waiters = this.waiters.filter((w) => {
      if (w.target > this.written) return true;
      w.resolve();
      return false;
    });
  }

  private recovered(): void {
    if (this.failingSince !== null)
      this.options.log.info(
        { failedForMs: Date.now() - this.failingSince, attempts: this.failures },
        "the spool is written again",
      );
    this.failingSince = null;
    this.failures = 0;
    this.retryAt = 0;
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.options.metrics.failing(false);
  }

  /** A write (or the start of a segment) failed: the spool is failing, and the next attempt waits for the backoff. */
  private failed(e: unknown, records: number): void {
    this.options.metrics.writeError();
    this.options.metrics.failing(true);
    if (this.failingSince === null)
      this.options.log.error(
        { err: e, dir: this.options.dir, records },
        "could not write the spool: these observations are kept in memory only until the ledger takes them; retrying with a backoff",
      );
    this.failingSince ??= Date.now();
    this.failures++;
    const initial = this.options.retryInitialMs ?? 100;
    const delay =
      this.failures === 1
        ? 0
        : Math.min(this.options.retryMaxMs ?? 5_000, initial * 2 ** Math.min(this.failures - 2, 20));
    this.retryAt = Date.now() + delay;
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    // Retried without traffic too: a proxy that refuses dispatches while its spool fails must find out by itself that the disk is back.
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      // The timer is the backoff's end. Date.now() may still read earlier (it steps with the wall clock, and
      // rounds apart from the timers' monotonic clock): a retry that checked it would drop its records and
      // leave the spool failing with no timer left.
      this.retryAt = 0;
      if (!this.closed && this.failingSince !== null) this.flushing ??= Promise.resolve().then(() => this.retry());
    }, delay);
    this.retryTimer.unref();
  }

  /** A retry of its own (the backoff is over): a new segment, which begins with the acknowledgement so far; with nothing to write, a probe of the disk. */
  private async retry(): Promise<void> {
    const rolled = !this.needsRoll || this.rollForRetry();
    if (rolled && this.pending.length === 0) await this.probe();
    return this.flush();
  }

  /** Writes, fsyncs and deletes a small file: whether the disk takes writes again. */
  private async probe(): Promise<void> {
    const path = join(this.options.dir, probeName);
    let fd = -1;
    try {
      fd = this.fs.openSync(path, "w");
      await this.fs.write(fd, Buffer.from("probe\n"), 0, 6);
      await this.fs.fdatasync(fd);
      this.recovered();
    } catch (e) {
      this.failed(e, 0);
    } finally {
      if (fd !== -1) this.closeQuietly(fd);
      try {
        this.fs.unlinkSync(path);
      } catch {
        // Not created, or already gone.
      }
      this.trim();
    }
  }

  /** Starts a new segment; false (the spool failing, with its backoff) when it cannot be. */
  private rollForRetry(): boolean {
    try {
      this.roll();
      this.needsRoll = false;
      return true;
    } catch (e) {
      this.options.log.warn({ err: e, dir: this.options.dir }, "could not start a new spool segment");
      this.needsRoll = true;
      this.failed(e, this.pending.length);
      return false;
    }
  }

  private closeQuietly(fd: number): void {
    try {
      this.fs.closeSync(fd);
    } catch {
      // Closing cannot be helped if it fails; the descriptor is not used again.
    }
  }

  /** Starts a new segment; it begins with the acknowledgement so far, which must outlive the segments it covers. */
  private roll(): void {
    // A name already taken (a segment that holds no observation yet) skips a sequence number: gaps are harmless.
    while (this.segments.some((s) => s.firstSeq === this.nextSeq)) this.nextSeq++;
    const segment: Segment = {
      firstSeq: this.nextSeq,
      path: join(this.options.dir, segmentName(this.nextSeq)),
      lastSeq: null,
      bytes: 0,
    };
    const fd = this.fs.openSync(segment.path, "a");
    if (this.fd !== -1) this.closeQuietly(this.fd);
    this.fd = fd;
    this.active = segment;
    this.segments.push(segment);
    // The new file's name must survive a power loss too.
    let dirFd = -1;
    try {
      dirFd = this.fs.openSync(this.options.dir, "r");
    } catch {
      // Without the directory's fsync the name is as durable as the file system makes it anyway.
    }
    if (dirFd !== -1) {
      void this.fs
        .fsync(dirFd)
        .catch(() => undefined)
        .finally(() => this.closeQuietly(dirFd));
    }
    if (this.acked >= 0) this.enqueue({ record: encodeRecord({ kind: "ack", seq: this.acked }), seq: null });
  }

  /** Deletes every segment but the active one whose observations are all acknowledged. */
  private trim(): void {
    for (let i = this.segments.length - 1; i >= 0; i--) {
      const s = this.segments[i] as Segment;
      if (s === this.active || (s.lastSeq !== null && s.lastSeq > this.acked)) continue;
      try {
        this.fs.unlinkSync(s.path);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "ENOENT") {
          this.options.log.warn({ err: e, segment: s.path }, "could not delete a spent spool segment");
          continue;
        }
      }
      this.segments.splice(i, 1);
    }
  }
}
