/** A plain node:http client for the tests: exact status, raw headers and body bytes, with arrival times. */
import http from "node:http";

export interface RawResponse {
  status: number;
  rawHeaders: string[];
  body: Buffer;
  /** Each body chunk as it arrived, with ms since the request was sent. */
  chunks: { at: number; data: Buffer }[];
}

export interface RawRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Called with every chunk as it arrives; return true to abort the request there (client goes away). */
  onChunk?: (data: Buffer, at: number) => boolean | void;
  timeoutMs?: number;
}

/** One request on a fresh connection (no keep-alive pool), so that tests do not share sockets. */
export function rawRequest(url: string, request: RawRequest = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const body =
      request.body === undefined ? undefined : Buffer.isBuffer(request.body) ? request.body : Buffer.from(request.body);
    const headers: Record<string, string> = { ...request.headers };
    if (body !== undefined) headers["content-length"] = String(body.length);
    const req = http.request(
      url,
      { method: request.method ?? (body === undefined ? "GET" : "POST"), headers, agent: false },
      (res) => {
        const chunks: { at: number; data: Buffer }[] = [];
        let aborted = false;
        res.on("data", (data: Buffer) => {
          const at = Date.now() - started;
          chunks.push({ at, data });
          if (request.onChunk?.(data, at) === true) {
            aborted = true;
            req.destroy();
            resolve({
              status: res.statusCode ?? 0,
              rawHeaders: res.rawHeaders,
              body: Buffer.concat(chunks.map((c) => c.data)),
              chunks,
            });
          }
        });
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            rawHeaders: res.rawHeaders,
            body: Buffer.concat(chunks.map((c) => c.data)),
            chunks,
          }),
        );
        res.on("error", (e) => (aborted ? undefined : reject(e)));
      },
    );
    req.setTimeout(request.timeoutMs ?? 30_000, () => req.destroy(new Error("test request timed out")));
    req.on("error", reject);
    req.end(body);
  });
}

const hopByHop = new Set(["connection", "keep-alive", "transfer-encoding", "date"]);

/** End-to-end headers as name/value pairs (lower-case names), without hop-by-hop ones and Date. */
export function endToEnd(rawHeaders: string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = (rawHeaders[i] as string).toLowerCase();
    if (!hopByHop.has(name)) out.push([name, rawHeaders[i + 1] as string]);
  }
  return out;
}

export const jsonRpc = (method: string, params: unknown, id: number | string = 1): string =>
  JSON.stringify({ jsonrpc: "2.0", id, method, params });

export const v1 = { "content-type": "application/json", "A2A-Version": "1.0" };
export const v03 = { "content-type": "application/json" };

/** A SendMessage configuration that waits for the task's answer and accepts JSON (the stories' dispatches). */
export const blockingJson = {
  acceptedOutputModes: ["application/json"],
  taskPushNotificationConfig: undefined,
  historyLength: undefined,
  returnImmediately: false,
};
