/**
 * The relay's HTTP/2 connections to the worker's gRPC endpoint: one per origin, opened on first use and
 * forgotten when it closes or the worker sends GOAWAY, so the next call opens a fresh one.
 */
import http2, { type ClientHttp2Session } from "node:http2";
import type { GrpcTarget } from "./grpc-target.ts";

export class UpstreamSessions {
  private readonly open = new Map<string, ClientHttp2Session>();

  /** The open session to the target's origin, or a new one. */
  sessionFor(target: GrpcTarget): ClientHttp2Session {
    const open = this.open.get(target.origin);
    if (open !== undefined && !open.closed && !open.destroyed) return open;
    const session = http2.connect(target.origin);
    session.on("error", () => undefined);
    const forget = () => {
      if (this.open.get(target.origin) === session) this.open.delete(target.origin);
    };
    session.on("close", forget);
    session.on("goaway", forget);
    this.open.set(target.origin, session);
    return session;
  }

  destroyAll(): void {
    for (const session of this.open.values()) session.destroy();
    this.open.clear();
  }
}
