/**
 * Answers sent before the body was read (413 over the byte limit, 401) reach clients that write the
 * whole body before they read: a raw socket client and Python's urllib. The server answers before
 * reading, lingers while the client finishes sending, and bounds how long and how much it discards.
 * Undeclared methods on known paths get 405 with Allow.
 */
import { execFile } from "node:child_process";
import { connect, type AddressInfo, type Socket } from "node:net";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testServer, type TestServer } from "../test/stack.ts";

const maxBodyBytes = 64 * 1024;
const token = "early-answer-token-0123456789";
const linger = { maxBytes: 16 * 1024 * 1024, maxMs: 1_500 };
let app: TestServer;
let port: number;

beforeAll(async () => {
  app = testServer({ topic: "ingest.early-answer.unused", maxBodyBytes }, { linger });
  await app.server.listen({ host: "127.0.0.1", port: 0 });
  port = (app.server.server.address() as AddressInfo).port;
});
afterAll(async () => {
  await app?.close();
});

interface Exchange {
  answer: string;
  /** The error the client's writes or reads met, if any (EPIPE, ECONNRESET). */
  error: string | undefined;
  /** Whether the first answer bytes arrived before the client finished writing the body. */
  answeredBeforeBodyEnd: boolean;
}

/** A raw HTTP/1.1 exchange: writes the head and every body chunk (waiting for each write), then reads until the server closes. */
function exchange(head: string, chunks: Buffer[], { timeoutMs = 15_000, pauseMs = 0 } = {}): Promise<Exchange> {
  return new Promise((resolve) => {
    // Half-open allowed: like a client still writing, it does not close its side when the answer ends.
    const socket: Socket = connect({ port, host: "127.0.0.1", allowHalfOpen: true });
    let answer = "";
    let error: string | undefined;
    let bodyDone = false;
    let answeredBeforeBodyEnd = false;
    const timer = setTimeout(() => socket.destroy(new Error("client timeout")), timeoutMs);
    socket.on("data", (d) => {
      if (answer === "" && !bodyDone) answeredBeforeBodyEnd = true;
      answer += d.toString("latin1");
    });
    let serverEnded = false;
    // Like urllib: read the answer to its end, and close once the body is written too.
    socket.on("end", () => {
      serverEnded = true;
      if (bodyDone) socket.end();
    });
    socket.on("error", (e) => (error ??= e.message));
    socket.on("close", () => {
      clearTimeout(timer);
      resolve({ answer, error, answeredBeforeBodyEnd });
    });
    void (async () => {
      const write = (b: Buffer | string) =>
        new Promise<void>((done) => socket.write(b, (e) => (e ? ((error ??= e.message), done()) : done())));
      await write(head);
      for (const chunk of chunks) {
        if (socket.destroyed) break;
        await write(chunk);
        if (pauseMs > 0) await new Promise((r) => setTimeout(r, pauseMs));
      }
      bodyDone = true;
      if (serverEnded) socket.end();
    })();
  });
}

const status = (answer: string): number => Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);
const body = (answer: string): { code?: string } =>
  JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4) || "{}") as { code?: string };
const slices = (total: number, size = 16 * 1024): Buffer[] =>
  Array.from({ length: Math.ceil(total / size) }, (_, i) => Buffer.alloc(Math.min(size, total - i * size), 0x20));
const head = (extra: string) =>
  `POST /v1/observations HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${extra}\r\n`;

describe("early answers that clients can read", () => {
  it("answers 413 before reading a body whose Content-Length is over the limit", async () => {
    // Only the head is sent: the answer cannot wait for a body that never comes.
    const socket = connect(port, "127.0.0.1");
    const answer = await new Promise<string>((resolve, reject) => {
      let got = "";
      socket.on("data", (d) => {
        got += d.toString("latin1");
        if (got.includes("\r\n\r\n")) resolve(got);
      });
      socket.on("error", reject);
      socket.write(head(`Content-Length: ${10 * maxBodyBytes}\r\n`));
    });
    socket.destroy();
    expect(status(answer)).toBe(413);
    expect(answer.toLowerCase()).toContain("connection: close");
  });

  it("lets a raw client that writes the whole over-limit body read the 413 (Content-Length)", async () => {
    const size = 12 * maxBodyBytes;
    const result = await exchange(head(`Content-Length: ${size}\r\n`), slices(size), { pauseMs: 5 });
    expect(result.error).toBeUndefined();
    expect(result.answeredBeforeBodyEnd).toBe(true);
    expect(status(result.answer)).toBe(413);
    expect(body(result.answer).code).toBe("INGEST_BODY_TOO_LARGE");
  });

  it("answers 413 while a chunked body is still streaming, and the client still reads it after writing all", async () => {
    const chunks = slices(12 * maxBodyBytes).map((c) =>
      Buffer.concat([Buffer.from(`${c.length.toString(16)}\r\n`), c, Buffer.from("\r\n")]),
    );
    // Paced, so that an answer given while streaming arrives before the last chunk is written.
    const result = await exchange(head("Transfer-Encoding: chunked\r\n"), [...chunks, Buffer.from("0\r\n\r\n")], {
      pauseMs: 5,
    });
    expect(result.error).toBeUndefined();
    expect(result.answeredBeforeBodyEnd).toBe(true);
    expect(status(result.answer)).toBe(413);
    expect(body(result.answer).code).toBe("INGEST_BODY_TOO_LARGE");
  });

  it("lets a client read a 401 given before the body was read", async () => {
    const secured = testServer(
      { topic: "ingest.early-answer.unused", maxBodyBytes, tokens: [{ token, observers: ["*"] }] },
      { linger },
    );
    await secured.server.listen({ host: "127.0.0.1", port: 0 });
    const securedPort = (secured.server.server.address() as AddressInfo).port;
    try {
      const size = 8 * maxBodyBytes;
      const saved = port;
      port = securedPort;
      const result = await exchange(head(`Content-Length: ${size}\r\n`), slices(size)).finally(() => (port = saved));
      expect(result.error).toBeUndefined();
      expect(status(result.answer)).toBe(401);
    } finally {
      await secured.close();
    }
  });

  it("lets Python's urllib read the 413 of a body it sends whole (larger than the socket buffers)", async () => {
    const script = [
      "import sys, urllib.request, urllib.error",
      "req = urllib.request.Request(sys.argv[1], data=b' ' * int(sys.argv[2]), headers={'Content-Type': 'application/json'}, method='POST')",
      "try:",
      "    urllib.request.urlopen(req, timeout=20)",
      "    print('no error')",
      "except urllib.error.HTTPError as e:",
      "    print(e.code, e.read().decode())",
    ].join("\n");
    const { stdout } = await promisify(execFile)(
      "python3",
      ["-c", script, `http://127.0.0.1:${port}/v1/observations`, String(8 * 1024 * 1024)],
      { timeout: 30_000 },
    );
    expect(stdout).toMatch(/^413 /);
    expect(stdout).toContain("INGEST_BODY_TOO_LARGE");
  });

  it("stops discarding after its byte bound, and after its time bound, and keeps serving", async () => {
    // Far beyond the bound: the server closes the connection rather than read on.
    const huge = await exchange(
      head(`Content-Length: ${4 * linger.maxBytes}\r\n`),
      slices(4 * linger.maxBytes, 256 * 1024),
      { timeoutMs: 30_000 },
    );
    expect(huge.answer === "" || status(huge.answer) === 413).toBe(true);
    expect(huge.error).toBeDefined();
    // A client that trickles its body: the server stops reading after maxMs, and the next write fails.
    const started = Date.now();
    const trickle = Array.from({ length: 80 }, () => Buffer.alloc(100, 0x20));
    const stalled = await exchange(head(`Content-Length: ${10 * maxBodyBytes}\r\n`), trickle, {
      timeoutMs: 10_000,
      pauseMs: 100,
    });
    const closedAfter = Date.now() - started;
    expect(status(stalled.answer)).toBe(413);
    expect(stalled.error).toMatch(/EPIPE|ECONNRESET/);
    expect(closedAfter).toBeGreaterThanOrEqual(linger.maxMs - 100);
    expect(closedAfter).toBeLessThan(linger.maxMs + 3_000);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
  }, 60_000);
});

describe("undeclared methods", () => {
  it.each([
    ["GET", "/v1/observations", "POST"],
    ["PUT", "/v1/observations", "POST"],
    ["DELETE", "/v1/observations", "POST"],
    ["POST", "/healthz", "GET, HEAD"],
    ["PATCH", "/openapi.json", "GET, HEAD"],
    ["OPTIONS", "/metrics", "GET, HEAD"],
  ])("answers %s %s with 405 and Allow: %s", async (method, url, allow) => {
    const response = await app.server.inject({
      method: method as "GET",
      url: `${url}?x=1`,
      headers: { "content-type": "application/json" },
      payload: method === "GET" || method === "OPTIONS" ? undefined : "{}",
    });
    expect(response.statusCode).toBe(405);
    expect(response.headers["allow"]).toBe(allow);
    expect(response.json()).toMatchObject({ code: "INGEST_METHOD_NOT_ALLOWED" });
  });

  it("still answers unknown paths with 404", async () => {
    const response = await app.server.inject({ method: "DELETE", url: "/v1/nothing" });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ code: "INGEST_NOT_FOUND" });
  });
});
