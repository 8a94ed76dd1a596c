import { describe, expect, it } from "vitest";
import { bodyFormatOf, eventsOf } from "./body.ts";
import { IngestError } from "./errors.ts";

const codeOf = (f: () => unknown): string | undefined => {
  try {
    f();
    return undefined;
  } catch (e) {
    return e instanceof IngestError ? e.code : "not an IngestError";
  }
};

describe("bodyFormatOf", () => {
  it("knows JSON and NDJSON, with UTF-8 charset or none, case-insensitively", () => {
    expect(bodyFormatOf("application/json")).toBe("json");
    expect(bodyFormatOf("Application/JSON; charset=UTF-8")).toBe("json");
    expect(bodyFormatOf("application/x-ndjson")).toBe("ndjson");
    expect(bodyFormatOf('application/x-ndjson; charset="utf-8"')).toBe("ndjson");
  });
  it("refuses everything else as INGEST_UNSUPPORTED_MEDIA_TYPE", () => {
    for (const type of [undefined, "", "text/plain", "application/json; charset=utf-16", "application/jsonx"]) {
      expect(
        codeOf(() => bodyFormatOf(type)),
        String(type),
      ).toBe("INGEST_UNSUPPORTED_MEDIA_TYPE");
    }
  });
});

describe("eventsOf", () => {
  const b = (s: string) => Buffer.from(s);
  it("reads one object as a batch of one, an array as its items, NDJSON line by line", () => {
    expect(eventsOf(b('{"a":1}'), "json", 10)).toEqual([{ a: 1 }]);
    expect(eventsOf(b('[{"a":1},{"a":2}]'), "json", 10)).toEqual([{ a: 1 }, { a: 2 }]);
    expect(eventsOf(b('{"a":1}\r\n\n  {"a":2}\n'), "ndjson", 10)).toEqual([{ a: 1 }, { a: 2 }]);
    expect(eventsOf(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), b('{"a":1}')]), "json", 10)).toEqual([{ a: 1 }]);
  });
  it("names the bad line of NDJSON by its index", () => {
    try {
      eventsOf(b('{"a":1}\n{oops\n{"a":3}'), "ndjson", 10);
      expect.unreachable();
    } catch (e) {
      expect(e).toMatchObject({ code: "INGEST_MALFORMED_BODY", details: [{ index: 1, path: "" }] });
    }
  });
  it("rejects empty, non-UTF-8, malformed and over-count bodies with their codes", () => {
    expect(codeOf(() => eventsOf(b(" \n"), "json", 10))).toBe("INGEST_MALFORMED_BODY");
    expect(codeOf(() => eventsOf(b("[]"), "json", 10))).toBe("INGEST_EMPTY_BATCH");
    expect(codeOf(() => eventsOf(Buffer.from([0x7b, 0xff, 0x7d]), "json", 10))).toBe("INGEST_MALFORMED_BODY");
    expect(codeOf(() => eventsOf(b('{"a":'), "json", 10))).toBe("INGEST_MALFORMED_BODY");
    expect(codeOf(() => eventsOf(b("[1,2,3]"), "json", 2))).toBe("INGEST_TOO_MANY_EVENTS");
    expect(codeOf(() => eventsOf(b("1\n2\n3"), "ndjson", 2))).toBe("INGEST_TOO_MANY_EVENTS");
  });
  it("survives nesting far deeper than any parser recursion limit", () => {
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    expect(eventsOf(b(deep), "json", 10)).toHaveLength(1);
  });
});
