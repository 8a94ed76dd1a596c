import { describe, expect, it } from "vitest";
import { errorCatalogue, errorCodes, ProxyError } from "../errors.ts";
import {
  errorInfoReasons,
  errorTrailers,
  grpcCodeName,
  grpcCodes,
  percentEncoded,
  statusDetails,
  statusOf,
} from "./grpc-status.ts";

describe("statusOf", () => {
  it("reads the code, the percent-encoded message and the ErrorInfo reasons of a worker's trailers", () => {
    const details = statusDetails(5, "Task not found", "TASK_NOT_FOUND", "a2a-protocol.org");
    expect(
      statusOf({ "grpc-status": "5", "grpc-message": "Task%20t-1%20not%20found", "grpc-status-details-bin": details }),
    ).toEqual({
      code: 5,
      message: "Task t-1 not found",
      reasons: ["TASK_NOT_FOUND"],
    });
  });

  it("reads unpadded base64 details, as grpc-js writes them", () => {
    const details = statusDetails(5, "x", "TASK_NOT_FOUND", "a2a-protocol.org").replace(/=+$/, "");
    expect(errorInfoReasons(details)).toEqual(["TASK_NOT_FOUND"]);
  });

  it("reads no code from a missing or non-numeric grpc-status, and no reasons from details that are not a Status", () => {
    expect(statusOf({}).code).toBeNull();
    expect(statusOf({ "grpc-status": "five" }).code).toBeNull();
    for (const garbage of [
      "",
      "!!!!",
      Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f]).toString("base64"),
      Buffer.from([0x1a, 0x7f, 1, 2]).toString("base64"),
    ])
      expect(errorInfoReasons(garbage)).toEqual([]);
    expect(statusOf({ "grpc-status": "13", "grpc-message": "%E0%A4%A" }).message).toBe("%E0%A4%A");
  });
});

describe("errorTrailers", () => {
  it("answers each catalogue code with the gRPC status of its rpcStatus and an ErrorInfo naming the code", () => {
    for (const code of errorCodes) {
      const trailers = errorTrailers(new ProxyError(code));
      expect(trailers[":status"]).toBe(200);
      expect(trailers["content-type"]).toBe("application/grpc");
      expect(grpcCodeName(Number(trailers["grpc-status"]))).toBe(errorCatalogue[code].rpcStatus);
      expect(statusOf(trailers as Record<string, string>)).toEqual({
        code: grpcCodes[errorCatalogue[code].rpcStatus],
        message: `${code}: ${errorCatalogue[code].message}`,
        reasons: [code],
      });
    }
  });

  it("keeps grpc-message to printable ASCII", () => {
    expect(percentEncoded("100% sûr\n")).toBe("100%25 s%C3%BBr%0A");
    expect(errorTrailers(new ProxyError("PROXY_LEDGER_UNAVAILABLE", undefined, 5))["retry-after"]).toBe("5");
  });
});
