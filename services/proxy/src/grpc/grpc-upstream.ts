/**
 * The worker's gRPC endpoint, for the relay: the configured one (`A2A_LEDGER_PROXY_GRPC_UPSTREAM`), else the one
 * the worker's own card names. The card's is learned from every card the proxy relays and, when the relay
 * needs it before any, fetched from the worker (`<A2A_LEDGER_PROXY_UPSTREAM_URL>/.well-known/agent-card.json`,
 * with `A2A-Version: 1.0`). A learned endpoint that stops answering is forgotten, so the next call reads
 * the card again (a worker restarted on another port is found). An endpoint that is the proxy's own
 * gRPC address is never taken: that would be a loop.
 */
import { grpcTargetOfCard, type GrpcTarget } from "./grpc-target.ts";

export interface GrpcUpstreamOptions {
  /** A2A_LEDGER_PROXY_GRPC_UPSTREAM, parsed; null: from the card. */
  configured: GrpcTarget | null;
  /** The worker's base URL (A2A_LEDGER_PROXY_UPSTREAM_URL). */
  upstreamUrl: string;
  /** The proxy's own gRPC target(s), never taken from a card. */
  ownTargets: () => readonly string[];
  /** How long the card fetch may take. */
  timeoutMs: number;
  /** Largest card read (A2A_LEDGER_PROXY_MAX_RECORDED_BYTES). */
  maxCardBytes: number;
  fetch?: typeof fetch;
}

export class GrpcUpstream {
  private learned: GrpcTarget | null = null;
  private fetching: Promise<GrpcTarget | null> | null = null;

  constructor(private readonly options: GrpcUpstreamOptions) {}

  /** The endpoint calls go to now, without fetching (card rewriting uses it). */
  known(): GrpcTarget | null {
    return this.options.configured ?? this.learned;
  }

  /** The endpoint calls go to, reading the worker's card first when none is known; null when there is none. */
  async resolve(): Promise<GrpcTarget | null> {
    const known = this.known();
    if (known !== null) return known;
    this.fetching ??= this.fetchCard().finally(() => {
      this.fetching = null;
    });
    return this.fetching;
  }

  /** Learns the endpoint of a card the worker served (JSON text); ignored when configured. */
  learnFromCard(card: unknown): void {
    if (this.options.configured !== null) return;
    const target = grpcTargetOfCard(card);
    if (target !== null && !this.options.ownTargets().includes(target.target)) this.learned = target;
  }

  /** The endpoint did not answer: a learned one is read from the card again next time. */
  unreachable(target: GrpcTarget): void {
    if (this.learned?.target === target.target) this.learned = null;
  }

  private async fetchCard(): Promise<GrpcTarget | null> {
    const doFetch = this.options.fetch ?? fetch;
    try {
      const response = await doFetch(`${this.options.upstreamUrl}/.well-known/agent-card.json`, {
        headers: { "a2a-version": "1.0", accept: "application/json" },
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      if (!response.ok || response.body === null) return null;
      const text = await boundedText(response.body, this.options.maxCardBytes);
      if (text !== null) this.learnFromCard(JSON.parse(text));
    } catch {
      return null;
    }
    return this.learned;
  }
}

/** The body as UTF-8 text, or null when it is longer than `max` bytes (then not read further). */
async function boundedText(body: ReadableStream<Uint8Array>, max: number): Promise<string | null> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}
