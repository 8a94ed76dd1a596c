/**
 * Correlation ids. A request names its correlation with the `A2A-Ledger-Correlation-Id` header or the
 * `a2a-ledger.correlationId` key of the message's (or the request's) metadata; the proxy then remembers
 * it per server task id (one proxy serves one worker, so the task id alone is the key), and later
 * GetTask, resubscribe, cancel and follow-up calls about that task are attributed without it.
 *
 * Without any correlation id, the first server task id of the exchange becomes the correlation id (for
 * that task and remembered like an explicit one); an exchange that shows no task at all (an answer that
 * is a Message, or an error) falls back to the request's messageId.
 *
 * The memory is in-process and bounded (least recently used entries are forgotten first): after a proxy
 * restart, or for a task forgotten, the task id is the correlation id unless the caller names one.
 */

const validId = /^[\x21-\x7e]{1,200}$/;

/** A usable correlation id: 1–200 visible ASCII characters, else null. */
export function validCorrelationId(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const trimmed = value.trim();
  return validId.test(trimmed) ? trimmed : null;
}

export class CorrelationMemory {
  private readonly byTask = new Map<string, string>();

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.byTask.size;
  }

  lookup(taskId: string): string | undefined {
    const found = this.byTask.get(taskId);
    if (found !== undefined) {
      // Refresh recency.
      this.byTask.delete(taskId);
      this.byTask.set(taskId, found);
    }
    return found;
  }

  /** Remembers the first correlation seen for a task; a later one does not replace it. */
  remember(taskId: string, correlationId: string): string {
    const known = this.lookup(taskId);
    if (known !== undefined) return known;
    this.byTask.set(taskId, correlationId);
    if (this.byTask.size > this.capacity) {
      const oldest = this.byTask.keys().next().value;
      if (oldest !== undefined) this.byTask.delete(oldest);
    }
    return correlationId;
  }
}
