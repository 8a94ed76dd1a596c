/**
 * gRPC status in the terms the proxy needs: the codes by name, the status a worker's trailers carry
 * (`grpc-status`, `grpc-message`, and the `google.rpc.ErrorInfo` reasons inside
 * `grpc-status-details-bin`), and the trailers of the proxy's own answers, which carry the catalogue's
 * code (errors.ts) as an ErrorInfo reason with domain `a2a-ledger.proxy`, as every binding's answers do.
 * Pure and total: a status that cannot be read is reported as such, never thrown.
 */
import { BinaryReader, BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { errorCatalogue, errorDomain, type ProxyError } from "../errors.ts";

export const grpcCodes = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;

export type GrpcCodeName = keyof typeof grpcCodes;

const namesByCode = new Map<number, GrpcCodeName>(
  Object.entries(grpcCodes).map(([name, code]) => [code, name as GrpcCodeName]),
);

/** The name of a numeric status (`"NOT_FOUND"` for 5); the number as text when it is not one of gRPC's. */
export function grpcCodeName(code: number): string {
  return namesByCode.get(code) ?? String(code);
}

export interface GrpcStatus {
  /** Null when the trailers carry no readable `grpc-status`. */
  code: number | null;
  message: string | null;
  /** `reason` of every `google.rpc.ErrorInfo` in `grpc-status-details-bin`. */
  reasons: string[];
}

const errorInfoType = "type.googleapis.com/google.rpc.ErrorInfo";

type HeaderBag = Readonly<Record<string, string | string[] | number | undefined>>;

function first(headers: HeaderBag, name: string): string | undefined {
  const v = headers[name];
  if (Array.isArray(v)) return v[0];
  return v === undefined ? undefined : String(v);
}

/** `grpc-message` is percent-encoded (gRPC over HTTP/2); a malformed escape is kept as it came. */
function percentDecoded(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** The status in a worker's trailers (or the headers of a trailers-only answer). */
export function statusOf(trailers: HeaderBag): GrpcStatus {
  const raw = first(trailers, "grpc-status")?.trim();
  const code = raw !== undefined && /^\d{1,3}$/.test(raw) ? Number(raw) : null;
  const message = first(trailers, "grpc-message");
  const details = first(trailers, "grpc-status-details-bin");
  return {
    code,
    message: message === undefined ? null : percentDecoded(message),
    reasons: details === undefined ? [] : errorInfoReasons(details),
  };
}

/** Reasons of the ErrorInfo details of a base64 `google.rpc.Status`; none when it cannot be read. */
export function errorInfoReasons(base64: string): string[] {
  try {
    const reasons: string[] = [];
    const status = new BinaryReader(Buffer.from(base64, "base64"));
    while (status.pos < status.len) {
      const [field, wire] = status.tag();
      if (field !== 3 || wire !== WireType.LengthDelimited) {
        status.skip(wire);
        continue;
      }
      const any = new BinaryReader(status.bytes());
      let typeUrl = "";
      let value: Uint8Array | null = null;
      while (any.pos < any.len) {
        const [f, w] = any.tag();
        if (f === 1 && w === WireType.LengthDelimited) typeUrl = any.string();
        else if (f === 2 && w === WireType.LengthDelimited) value = any.bytes();
        else any.skip(w);
      }
      if (typeUrl !== errorInfoType || value === null) continue;
      const info = new BinaryReader(value);
      while (info.pos < info.len) {
        const [f, w] = info.tag();
        if (f === 1 && w === WireType.LengthDelimited) reasons.push(info.string());
        else info.skip(w);
      }
    }
    return reasons;
  } catch {
    return [];
  }
}

/** `grpc-message` text: percent-encoded outside printable ASCII, and `%` itself. */
export function percentEncoded(message: string): string {
  let out = "";
  for (const byte of Buffer.from(message, "utf8"))
    out +=
      byte >= 0x20 && byte <= 0x7e && byte !== 0x25
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  return out;
}

/** A base64 `google.rpc.Status` with one ErrorInfo (reason, domain). */
export function statusDetails(code: number, message: string, reason: string, domain: string): string {
  const info = new BinaryWriter()
    .tag(1, WireType.LengthDelimited)
    .string(reason)
    .tag(2, WireType.LengthDelimited)
    .string(domain)
    .finish();
  const any = new BinaryWriter()
    .tag(1, WireType.LengthDelimited)
    .string(errorInfoType)
    .tag(2, WireType.LengthDelimited)
    .bytes(info)
    .finish();
  const status = new BinaryWriter()
    .tag(1, WireType.Varint)
    .int32(code)
    .tag(2, WireType.LengthDelimited)
    .string(message)
    .tag(3, WireType.LengthDelimited)
    .bytes(any)
    .finish();
  return Buffer.from(status).toString("base64");
}

/** The gRPC status of one of the proxy's own errors: its catalogue entry's `rpcStatus`. */
export function grpcCodeOf(error: ProxyError): number {
  return grpcCodes[errorCatalogue[error.code].rpcStatus];
}

/**
 * The headers of a trailers-only answer (HTTP 200, `content-type: application/grpc`, the status) for
 * one of the proxy's own errors. `grpc-message` starts with the catalogue code.
 */
export function errorTrailers(error: ProxyError): Record<string, string | number> {
  const code = grpcCodeOf(error);
  const message = `${error.code}: ${error.message}`;
  const headers: Record<string, string | number> = {
    ":status": 200,
    "content-type": "application/grpc",
    "grpc-status": String(code),
    "grpc-message": percentEncoded(message),
    "grpc-status-details-bin": statusDetails(code, message, error.code, errorDomain),
  };
  if (error.retryAfterSeconds !== undefined) headers["retry-after"] = String(error.retryAfterSeconds);
  return headers;
}
