import { describe, expect, it } from "vitest";
import { canonicalize, CanonicalJsonError } from "./canonical-json.ts";

describe("RFC 8785 canonical JSON", () => {
  it("sorts member names by UTF-16 code units (RFC 8785 §3.2.3 example)", () => {
    const input = JSON.parse(
      '{"\\u20ac":"Euro Sign","\\r":"Carriage Return","\\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One","\\ud83d\\ude00":"Emoji: Grinning Face","\\u0080":"Control","\\u00f6":"Latin Small Letter O With Diaeresis"}',
    );
    expect(canonicalize(input)).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis","\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });

  it("produces the RFC 8785 §3.2.2 example output byte for byte", () => {
    const input = JSON.parse(
      '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001], "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/", "literals": [null, true, false]}',
    );
    expect(canonicalize(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it.each([
    [0, "0"],
    [-0, "0"],
    [5e-324, "5e-324"],
    [1.7976931348623157e308, "1.7976931348623157e+308"],
    [9007199254740992, "9007199254740992"],
    [1e21, "1e+21"],
    [1e20, "100000000000000000000"],
    [295147905179352830000, "295147905179352830000"],
    [0.000001, "0.000001"],
    [1e-7, "1e-7"],
    [-1.5e-7, "-1.5e-7"],
    [333333333.3333332, "333333333.3333332"],
  ])("formats the number %s as %s (RFC 8785 appendix B)", (value, text) => {
    expect(canonicalize(value)).toBe(text);
  });

  it("refuses non-finite numbers", () => {
    expect(() => canonicalize({ x: Number.NaN })).toThrow(CanonicalJsonError);
    expect(() => canonicalize([Number.POSITIVE_INFINITY])).toThrow(CanonicalJsonError);
  });

  it("sorts nested objects and keeps array order, with no whitespace", () => {
    expect(canonicalize({ b: [3, { z: 1, a: 2 }], a: { y: null, x: "s" } })).toBe(
      '{"a":{"x":"s","y":null},"b":[3,{"a":2,"z":1}]}',
    );
  });
});
