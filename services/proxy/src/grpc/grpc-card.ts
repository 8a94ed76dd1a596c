/**
 * What the gRPC relay does with the cards the proxy relays: it learns the worker's gRPC endpoint from
 * each (when A2A_LEDGER_PROXY_GRPC_UPSTREAM does not name it) and, with A2A_LEDGER_PROXY_REWRITE_CARD_URLS, rewrites the
 * card's GRPC interface URL that names that endpoint to the relay's, so a client that reads the card
 * keeps talking through the proxy on gRPC too.
 */
import type { GrpcUpstream } from "./grpc-upstream.ts";
import { rewriteGrpcCardUrls } from "./grpc-target.ts";

/** (the card as the worker sent it, the card as it is about to be relayed) → the card to relay. */
export type GrpcCardRewrite = (workerCard: string, relayed: string) => string;

export function grpcCardRewrite(
  upstream: GrpcUpstream,
  publicTarget: () => string | null,
  rewrite: boolean,
): GrpcCardRewrite {
  return (workerCard, relayed) => {
    let card: unknown;
    try {
      card = JSON.parse(workerCard);
    } catch {
      return relayed;
    }
    upstream.learnFromCard(card);
    const worker = upstream.known();
    const target = publicTarget();
    if (!rewrite || worker === null || target === null) return relayed;
    return rewriteGrpcCardUrls(relayed, worker, target);
  };
}
