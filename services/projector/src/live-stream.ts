/**
 * Live view changes for SSE clients. Change notices come from the store (committed batches of any
 * instance: in-process on SQLite, LISTEN/NOTIFY on PostgreSQL); each client gets the ones its filter
 * (a correlation or a worker) selects. A rebuild swapping generations reaches every client as
 * `refresh`, noticed by watching the active generation.
 */
import { activeGeneration } from "./store/generations.ts";
import type { Store } from "./store/store.ts";
import type { ChangeNotice } from "./views/writer.ts";

export interface StreamFilter {
  correlationId?: string | undefined;
  workerId?: string | undefined;
}

export interface StreamEvent {
  event: "task" | "worker" | "dlq" | "refresh";
  data: Record<string, unknown>;
}

type Listener = (event: StreamEvent) => void;

export class LiveStream {
  private readonly clients = new Map<Listener, StreamFilter>();
  private unsubscribe: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private gen: number | undefined;

  constructor(
    private readonly store: Store,
    private readonly generationCheckMs = 2_000,
  ) {}

  get size(): number {
    return this.clients.size;
  }

  async start(): Promise<void> {
    this.unsubscribe = this.store.onNotice((payload) => this.dispatch(payload));
    await this.checkGeneration();
    this.timer = setInterval(() => void this.checkGeneration(), this.generationCheckMs);
    this.timer.unref();
  }

  private async checkGeneration(): Promise<void> {
    const gen = await this.store.read(activeGeneration).catch(() => undefined);
    if (gen === undefined) return;
    if (this.gen !== undefined && gen !== this.gen)
      this.broadcast({ event: "refresh", data: { reason: "rebuilt", generation: gen } });
    this.gen = gen;
  }

  private dispatch(payload: string): void {
    let notice: ChangeNotice;
    try {
      notice = JSON.parse(payload) as ChangeNotice;
    } catch {
      return;
    }
    if (notice.many) {
      this.broadcast({ event: "refresh", data: { reason: "many changes" } });
      return;
    }
    for (const [listener, filter] of this.clients) {
      for (const t of notice.tasks) {
        if (filter.correlationId !== undefined && t.c !== filter.correlationId) continue;
        if (filter.workerId !== undefined && !t.w.includes(filter.workerId)) continue;
        listener({ event: "task", data: { correlationId: t.c, status: t.s, workers: t.w } });
      }
      for (const w of notice.workers) {
        if (filter.correlationId !== undefined || (filter.workerId !== undefined && w !== filter.workerId)) continue;
        listener({ event: "worker", data: { workerId: w } });
      }
      if (notice.dlq > 0 && filter.correlationId === undefined && filter.workerId === undefined)
        listener({ event: "dlq", data: { added: notice.dlq } });
    }
  }

  private broadcast(event: StreamEvent): void {
    for (const listener of this.clients.keys()) listener(event);
  }

  subscribe(filter: StreamFilter, listener: Listener): () => void {
    this.clients.set(listener, filter);
    return () => this.clients.delete(listener);
  }

  stop(): void {
    this.unsubscribe?.();
    if (this.timer !== undefined) clearInterval(this.timer);
    this.clients.clear();
  }
}
