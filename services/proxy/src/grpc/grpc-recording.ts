/**
 * What the relay reads of an A2A call to record it: the request message, read whole, and a copy of each
 * answer message as it streams by. Either is read for observations only — the bytes relayed are never
 * these — and what cannot be read (not one message, compressed in an encoding the proxy does not read,
 * not the method's message, oversized) is counted as unrecorded, never refused.
 */
import type { IncomingHttpHeaders } from "node:http2";
import type { Logger } from "@a2a-ledger/logging";
import { decodedBody } from "../answer-reader.ts";
import type { ProxyConfig } from "../config.ts";
import type { ExchangeRecorder } from "../exchange-recorder.ts";
import type { UnrecordedReason } from "../metrics.ts";
import { type GrpcCall, type GrpcRequest, readWith } from "./grpc-calls.ts";
import { type GrpcMessage, GrpcMessageReader } from "./grpc-frames.ts";
import { first } from "./grpc-stream.ts";

/** A compressed message's bytes for reading; null when the call's encoding is not one the proxy reads. */
function inflated(message: GrpcMessage, encoding: string | undefined, maxBytes: number): Buffer | null {
  if (!message.compressed) return message.bytes;
  const e = encoding?.trim().toLowerCase();
  // A compressed message in a call without an encoding breaks gRPC's framing: nothing to read.
  if (e === undefined || e === "" || e === "identity") return null;
  return decodedBody(message.bytes, e, maxBytes);
}

export class GrpcRecording {
  constructor(
    private readonly config: Pick<ProxyConfig, "maxBodyBytes" | "maxRecordedBytes">,
    private readonly unrecorded: (reason: UnrecordedReason) => void,
    private readonly log: Logger,
  ) {}

  /** The call's request, read for recording; null (counted) when it is not one readable A2A request message. */
  request(call: GrpcCall, body: Buffer, headers: IncomingHttpHeaders, callId: string): GrpcRequest | null {
    const { config, log } = this;
    const messages: GrpcMessage[] = [];
    let problem: string | null = null;
    const reader = new GrpcMessageReader(
      { message: (m) => messages.push(m), problem: (p) => (problem ??= p) },
      config.maxBodyBytes,
    );
    reader.push(body);
    reader.end();
    const only = messages[0];
    if (problem !== null || only === undefined || messages.length !== 1) {
      this.unrecorded("malformed_grpc");
      log.warn(
        { callId, method: call.method, reason: problem ?? `${messages.length} request messages`, bytes: body.length },
        "forwarding a malformed gRPC request as it is; nothing recorded",
      );
      return null;
    }
    const bytes = inflated(only, first(headers, "grpc-encoding"), config.maxRecordedBytes);
    if (bytes === null) {
      this.unrecorded("encoded_body");
      return null;
    }
    const read = readWith(() => call.readRequest(bytes, headers as Record<string, string | string[] | undefined>));
    if (!read.ok) {
      this.unrecorded("malformed_grpc");
      log.warn(
        { callId, method: call.method, reason: read.reason, bytes: body.length },
        "forwarding a gRPC request that is not the method's message as it is; nothing recorded",
      );
      return null;
    }
    return read.value;
  }

  /** Reads a copy of each answer message for the recorder; what cannot be read is counted. */
  answerReader(call: GrpcCall, recorder: ExchangeRecorder, encoding: string | undefined): GrpcMessageReader {
    const { config } = this;
    const readAnswer = call.readAnswer;
    const unrecorded = this.unrecorded;
    return new GrpcMessageReader(
      {
        message(message) {
          const bytes = inflated(message, encoding, config.maxRecordedBytes);
          if (bytes === null) return unrecorded("encoded_body");
          const read = readWith(() => readAnswer?.(bytes) ?? []);
          if (read.ok) recorder.observe(read.value);
          else unrecorded("malformed_grpc");
        },
        problem(problem) {
          unrecorded(
            problem === "oversized" ? (call.serverStreaming ? "oversized_event" : "body_too_large") : "malformed_grpc",
          );
        },
      },
      config.maxRecordedBytes,
    );
  }
}
