/**
 * What the gRPC relay does to an HTTP/2 stream that is not gRPC's own: start an answer without letting a
 * refused header take the process down, copy a message's headers without the pseudo-headers, and read
 * one header's value.
 */
import http2, { type IncomingHttpHeaders, type OutgoingHttpHeaders, type ServerHttp2Stream } from "node:http2";
import { headerValue } from "../a2a-request.ts";

const { NGHTTP2_INTERNAL_ERROR } = http2.constants;

/**
 * Starts the client's answer; false (the stream reset) when the stream is gone or the headers are ones
 * HTTP/2 refuses to send.
 */
export function respond(
  stream: ServerHttp2Stream,
  headers: OutgoingHttpHeaders,
  options: { endStream?: boolean; waitForTrailers?: boolean },
): boolean {
  if (stream.destroyed || stream.closed) return false;
  try {
    // sendDate: false — the relay adds no header of its own (Node's typings lack the option).
    stream.respond(headers, { ...options, sendDate: false } as http2.ServerStreamResponseOptions);
    return true;
  } catch {
    if (!stream.closed) stream.close(NGHTTP2_INTERNAL_ERROR);
    return false;
  }
}

/** Headers of a message without HTTP/2's pseudo-headers (`:path`, `:status`, …). */
export function plainHeaders(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers))
    if (!name.startsWith(":") && value !== undefined) out[name] = value;
  return out;
}

/** The first value of a header. */
export const first = (headers: IncomingHttpHeaders, name: string): string | undefined =>
  headerValue(headers as Record<string, string | string[] | undefined>, name);
