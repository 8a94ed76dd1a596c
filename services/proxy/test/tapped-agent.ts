/**
 * A JS mesh worker in this process with a tap: every request's body bytes and every response's bytes,
 * exactly as the worker wrote them, are kept — what a proxied client must receive unchanged.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createJsAgentApp, defaultWorkerConfig, type JsWorkerKind, type WorkerConfig } from "@a2a-ledger/mesh-agents";

export interface Exchange {
  method: string;
  url: string;
  /** When the request arrived (ms since the epoch). */
  receivedAt: number;
  requestBody: Buffer;
  status: number;
  body: Buffer;
}

export interface TappedAgent {
  url: string;
  exchanges: Exchange[];
  /** URLs of responses whose connection closed before the worker ended them (the client went away). */
  abandoned: string[];
  /** The exchange for the request with this path, last first. */
  last(path?: string): Exchange;
  setConfig(config: WorkerConfig): void;
  /** Forget every task: a new app with a new InMemoryTaskStore on the same port. */
  restart(): void;
  /** The app before the last restart answers again, with the tasks it held (a replica that kept them took over). */
  recover(): void;
  close(): Promise<void>;
}

function tap(req: IncomingMessage, res: ServerResponse, exchanges: Exchange[], abandoned: string[]): void {
  // Express rewrites req.url under mounted routers: keep the URL as it arrived.
  const method = req.method ?? "";
  const url = req.url ?? "";
  const receivedAt = Date.now();
  const requestChunks: Buffer[] = [];
  res.on("close", () => {
    if (!res.writableEnded) abandoned.push(url);
  });
  req.on("data", (c: Buffer) => requestChunks.push(c));
  const body: Buffer[] = [];
  const write = res.write.bind(res) as (chunk: unknown, ...rest: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  const keep = (chunk: unknown, encoding?: unknown) => {
    if (chunk === undefined || chunk === null || typeof chunk === "function") return;
    body.push(
      Buffer.isBuffer(chunk)
        ? chunk
        : Buffer.from(chunk as string, typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8"),
    );
  };
  res.write = ((chunk: unknown, ...rest: unknown[]) => {
    keep(chunk, rest[0]);
    return write(chunk, ...rest);
  }) as ServerResponse["write"];
  res.end = ((...args: unknown[]) => {
    keep(args[0], args[1]);
    exchanges.push({
      method,
      url,
      receivedAt,
      requestBody: Buffer.concat(requestChunks),
      status: res.statusCode,
      body: Buffer.concat(body),
    });
    return end(...args);
  }) as ServerResponse["end"];
}

export async function startTappedAgent(kind: JsWorkerKind): Promise<TappedAgent> {
  const exchanges: Exchange[] = [];
  const abandoned: string[] = [];
  let config = defaultWorkerConfig[kind];
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const build = () => createJsAgentApp(kind, url, () => config);
  let app = build();
  let previous = app;
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    tap(req, res, exchanges, abandoned);
    app(req, res);
  });
  return {
    url,
    exchanges,
    abandoned,
    last(path?: string) {
      const found = [...exchanges].reverse().find((e) => path === undefined || e.url === path);
      if (found === undefined) throw new Error(`no exchange for ${path ?? "any path"}`);
      return found;
    },
    setConfig(next) {
      config = next;
    },
    restart() {
      previous = app;
      app = build();
    },
    recover() {
      app = previous;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
