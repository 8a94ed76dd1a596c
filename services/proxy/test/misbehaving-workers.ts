/**
 * Servers that misbehave the way a broken worker does, for the resilience tests: one that accepts and
 * never answers, one that answers with something that is not HTTP, one scripted per request, and a
 * port where nothing listens.
 */
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createNetServer, type Server, type Socket } from "node:net";

export interface Running {
  url: string;
  close(): Promise<void>;
}

async function listen(server: Server, sockets: Set<Socket>): Promise<Running> {
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Accepts connections, reads the request, never answers. */
export function hangingWorker(): Promise<Running> {
  const server = createNetServer((socket) => socket.on("data", () => undefined));
  return listen(server, new Set());
}

/** Answers every request with bytes that are not HTTP. */
export function garbageWorker(): Promise<Running> {
  const server = createNetServer((socket) => socket.once("data", () => socket.end("this is not HTTP at all\r\n\r\n")));
  return listen(server, new Set());
}

/** An HTTP server whose handler the test writes. */
export function scriptedWorker(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Running> {
  const server = createHttpServer(handler);
  return listen(server, new Set());
}

/** A loopback port nothing listens on (free a moment ago). */
export async function deadPort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
