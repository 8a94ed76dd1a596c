import { describe, expect, it } from "vitest";
import { classifyDecodeFailure } from "./decode-failure.ts";
import { schemaIdOf } from "./serde.ts";

const thrownBy = (f: () => unknown): unknown => {
  try {
    f();
  } catch (error) {
    return error;
  }
  throw new Error("nothing thrown");
};

describe("classifying a decode failure", () => {
  it("calls bytes without the wire format's magic byte and schema id undecodable", () => {
    expect(classifyDecodeFailure(thrownBy(() => schemaIdOf(Buffer.from("{}"))))).toEqual({
      kind: "undecodable",
      message: expect.stringContaining("not a Confluent wire-format record"),
    });
  });

  it("calls a schema id the registry does not know, and bytes avsc refuses, an unknown schema", () => {
    expect(classifyDecodeFailure(Object.assign(new Error("Schema 99 not found"), { status: 404 }))).toEqual({
      kind: "unknown-schema",
      message: "Schema 99 not found",
    });
    expect(classifyDecodeFailure(new Error("truncated buffer"))).toEqual({
      kind: "unknown-schema",
      message: "truncated buffer",
    });
  });

  it("gives no verdict when the registry is unreachable, failing or overloaded: the record is read again", () => {
    expect(
      classifyDecodeFailure(Object.assign(new Error("fetch failed"), { cause: { code: "ECONNREFUSED" } })),
    ).toBeUndefined();
    expect(
      classifyDecodeFailure(Object.assign(new Error("connect EHOSTUNREACH 10.0.0.9:8081"), { code: "EHOSTUNREACH" })),
    ).toBeUndefined();
    expect(classifyDecodeFailure(Object.assign(new Error("Internal Server Error"), { status: 503 }))).toBeUndefined();
    expect(classifyDecodeFailure(Object.assign(new Error("Too Many Requests"), { status: 429 }))).toBeUndefined();
  });
});
