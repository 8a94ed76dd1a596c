import { describe, expect, it } from "vitest";
import { SerdeError, WireFormatError } from "@a2a-ledger/schemas/serde";
import { PoisonRecordError } from "./errors.ts";
import { classifyDecodeError, deadLetter, dlqHeader } from "./poison.ts";

describe("classifyDecodeError", () => {
  it("calls bytes without the Confluent frame undecodable", () => {
    expect(classifyDecodeError(new WireFormatError("no magic byte"))?.reason).toBe("RECONCILER_UNDECODABLE");
  });
  it("calls a record whose schema is not of the catalogue undecodable", () => {
    expect(
      classifyDecodeError(
        new WireFormatError(
          "schema id 9 is elsewhere.Foreign, not an event of this catalogue",
          "SERDE_NOT_IN_CATALOGUE",
        ),
      )?.reason,
    ).toBe("RECONCILER_UNDECODABLE");
  });
  it("calls the serde's refusals of a schema id or of the bytes an unknown schema, naming its code, whatever words the message holds", () => {
    for (const code of ["SERDE_UNKNOWN_SCHEMA_ID", "SERDE_UNRESOLVABLE_SCHEMA", "SERDE_BAD_BYTES"] as const) {
      const poison = classifyDecodeError(
        new SerdeError("schema id 7 (a2a.ledger.v1.TaskTimeout) cannot be read as this catalogue's TaskTimeout", code),
      );
      expect(poison?.reason).toBe("RECONCILER_UNKNOWN_SCHEMA");
      expect(poison?.message).toContain(code);
    }
  });
  it("calls a schema id the registry does not know an unknown schema", () => {
    expect(classifyDecodeError(Object.assign(new Error("Schema not found"), { status: 404 }))?.reason).toBe(
      "RECONCILER_UNKNOWN_SCHEMA",
    );
  });
  it("calls bytes that do not decode with their schema an unknown schema", () => {
    expect(classifyDecodeError(new Error("truncated buffer"))?.reason).toBe("RECONCILER_UNKNOWN_SCHEMA");
  });
  it("does not call an unreachable registry poison: the batch is retried", () => {
    expect(classifyDecodeError(new TypeError("fetch failed"))).toBeUndefined();
    expect(
      classifyDecodeError(Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:18081"), { code: "ECONNREFUSED" })),
    ).toBeUndefined();
    expect(classifyDecodeError(Object.assign(new Error("Service Unavailable"), { status: 503 }))).toBeUndefined();
  });
});

describe("deadLetter", () => {
  it("keeps key, value and headers and adds the reason and the source coordinates", () => {
    const message = {
      key: Buffer.from("k"),
      value: Buffer.from("v"),
      headers: { trace: Buffer.from("t") },
      offset: "41",
      timestamp: "0",
      attributes: 0,
    };
    const letter = deadLetter(
      { topic: "in", partition: 3 },
      message,
      new PoisonRecordError("RECONCILER_KEY_MISMATCH", "key k"),
    );
    expect(letter.key).toEqual(Buffer.from("k"));
    expect(letter.value).toEqual(Buffer.from("v"));
    expect(letter.headers).toMatchObject({
      trace: Buffer.from("t"),
      [dlqHeader.reason]: "RECONCILER_KEY_MISMATCH",
      [dlqHeader.topic]: "in",
      [dlqHeader.partition]: "3",
      [dlqHeader.offset]: "41",
    });
    expect(String(letter.headers[dlqHeader.detail])).toMatch(/record key is not the observation's correlationId/);
  });
});
