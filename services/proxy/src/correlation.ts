/**
 * Correlation ids. A request names its correlation with the `A2A-Ledger-Correlation-Id` header or the
 * `a2a-ledger.correlationId` key of the message's (or the request's) metadata; the proxy then remembers
 * it per server task id (one proxy serves one worker, so the task id alone is the key), and later
 * GetTask, resubscribe, cancel and follow-up calls about that task are attributed without it.
 *
 * Without any correlation id, the first server task id of the exchange becomes the correlation id (for
 * that task and remembered like an explicit one); an exchange that shows no task at all (an answer that
 * is a Message, or an error) falls back to the request's messageId, and without one to an id of the
 * exchange itself (exchange-recorder.ts).
 *
 * The memory is bounded by count (least recently used entries are forgotten first) and by age (a task
 * no request or answer named for `maxAgeMs` is forgotten), and kept in a store that outlives the process
 * (correlation-store.ts): after a restart the proxy still knows the correlation of every task it remembers.
 */
import { createHash, randomUUID } from "node:crypto";
import type { CorrelationStore } from "./correlation-store.ts";

const validId = /^[\x21-\x7e]{1,200}$/;

/** A usable correlation id: 1–200 visible ASCII characters, else null. */
export function validCorrelationId(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const trimmed = value.trim();
  return validId.test(trimmed) ? trimmed : null;
}

/**
 * The correlation id an id of the exchange stands for when the caller named none: the id itself when
 * it is a usable correlation id; `<kind>-<digest>` of it when it is not (too long, spaces, non-ASCII),
 * so the same id always gives the same correlation; and when there is no id at all (a message without
 * a messageId), `<kind>-<random UUID>`, a correlation of its own. Never empty: the ledger refuses an
 * observation without a correlation id.
 */
export function correlationOfId(kind: "task" | "message", id: string): string {
  if (id.trim() === "") return `${kind}-${randomUUID()}`;
  return validCorrelationId(id) ?? `${kind}-${createHash("sha256").update(id, "utf8").digest("hex").slice(0, 32)}`;
}

export interface CorrelationMemoryOptions {
  /** Where the memory is kept across restarts; none: in the process only. */
  store?: CorrelationStore;
  now?: () => number;
  /** How often the recency of the tasks used since is saved (ms). */
  touchIntervalMs?: number;
  /** Told the number of remembered tasks whenever it changes. */
  onSize?: (size: number) => void;
  /** A task not used for longer than this is forgotten (default: never by age, only by count). */
  maxAgeMs?: number;
}

interface Remembered {
  correlationId: string;
  /** When a request or an answer last named the task. */
  usedAt: number;
}

export class CorrelationMemory {
  /** Map order is recency: the first key is the least recently used. */
  private readonly byTask = new Map<string, Remembered>();
  private readonly maxAgeMs: number;
  private readonly touched = new Set<string>();
  private readonly store: CorrelationStore | undefined;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;
  private readonly onSize: (size: number) => void;

  constructor(
    private readonly capacity: number,
    options: CorrelationMemoryOptions = {},
  ) {
    this.store = options.store;
    this.now = options.now ?? Date.now;
    this.onSize = options.onSize ?? (() => undefined);
    this.maxAgeMs = options.maxAgeMs ?? Number.POSITIVE_INFINITY;
    if (this.store !== undefined) {
      for (const [taskId, correlationId, usedAt] of this.store.load())
        this.byTask.set(taskId, { correlationId, usedAt });
      this.evict();
      this.timer = setInterval(() => {
        this.saveRecency();
        if (this.evict()) this.onSize(this.byTask.size);
      }, options.touchIntervalMs ?? 1_000);
      this.timer.unref();
    }
    this.onSize(this.byTask.size);
  }

  get size(): number {
    return this.byTask.size;
  }

  lookup(taskId: string): string | undefined {
    if (this.evict()) this.onSize(this.byTask.size);
    const found = this.byTask.get(taskId);
    if (found !== undefined) {
      // Refresh recency.
      this.byTask.delete(taskId);
      this.byTask.set(taskId, { correlationId: found.correlationId, usedAt: this.now() });
      if (this.store !== undefined) this.touched.add(taskId);
    }
    return found?.correlationId;
  }

  /** Remembers the first correlation seen for a task; a later one does not replace it. */
  remember(taskId: string, correlationId: string): string {
    const known = this.lookup(taskId);
    if (known !== undefined) return known;
    const usedAt = this.now();
    this.byTask.set(taskId, { correlationId, usedAt });
    this.store?.put(taskId, correlationId, usedAt);
    this.evict();
    this.onSize(this.byTask.size);
    return correlationId;
  }

  /** Saves what is pending and closes the store. */
  close(): void {
    clearInterval(this.timer);
    this.saveRecency();
    this.store?.close();
  }

  /** Forgets the least recently used tasks beyond the capacity, and those unused for longer than the age bound; whether any was. */
  private evict(): boolean {
    const forgotten: string[] = [];
    const oldest = this.now() - this.maxAgeMs;
    // Map order is recency, so the tasks to forget are all at the front.
    for (const [taskId, { usedAt }] of this.byTask) {
      if (this.byTask.size - forgotten.length <= this.capacity && usedAt >= oldest) break;
      forgotten.push(taskId);
    }
    for (const taskId of forgotten) {
      this.byTask.delete(taskId);
      this.touched.delete(taskId);
    }
    if (forgotten.length > 0) this.store?.forget(forgotten);
    return forgotten.length > 0;
  }

  private saveRecency(): void {
    if (this.store === undefined || this.touched.size === 0) return;
    const ids = [...this.touched];
    this.touched.clear();
    this.store.touch(ids, this.now());
  }
}
