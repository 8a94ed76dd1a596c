import { describe, expect, it } from "vitest";
import { isoDateTimePattern, parseIsoTimestamp, toEpochMillis } from "./timestamp.ts";

describe("timestamps", () => {
  it.each([
    ["1970-01-01T00:00:00Z", 0],
    ["2025-01-31T12:00:00.5Z", 1738324800500],
    ["2025-01-31T13:30:00+01:30", 1738324800000],
    ["2024-02-29T23:59:59.999-00:00", 1709251199999],
    ["1969-12-31T23:59:59Z", -1000],
    ["2000-03-01t00:00:00z", 951868800000],
  ])("parses %s as %d epoch ms", (text, ms) => {
    expect(parseIsoTimestamp(text)).toBe(ms);
  });

  it.each([
    "2025-01-31T12:00:00",
    "2025-02-30T00:00:00Z",
    "2023-02-29T00:00:00Z",
    "2025-01-31",
    "2025-13-01T00:00:00Z",
    "2025-01-31T24:00:00Z",
    "yesterday",
  ])("refuses %s", (text) => {
    expect(parseIsoTimestamp(text)).toBeNull();
  });

  it("accepts integer epoch ms and refuses fractions, booleans and unsafe integers", () => {
    expect(toEpochMillis(1738324800500)).toEqual({ ok: true, value: 1738324800500 });
    expect(toEpochMillis(1.5).ok).toBe(false);
    expect(toEpochMillis(true).ok).toBe(false);
    expect(toEpochMillis(2 ** 60).ok).toBe(false);
  });

  it("states in isoDateTimePattern exactly what it parses, for documents that describe its inputs", () => {
    const pattern = new RegExp(isoDateTimePattern);
    for (const text of [
      "1970-01-01T00:00:00Z",
      "2025-01-31T13:30:00+01:30",
      "2024-02-29 23:59:59,999-0000",
      "2000-02-29T00:00:00+05",
      "1900-02-28T00:00:00Z",
      "0000-02-29T00:00:00Z",
    ]) {
      expect(pattern.test(text), text).toBe(true);
      expect(parseIsoTimestamp(text), text).not.toBeNull();
    }
    for (const text of [
      "1900-02-29T00:00:00Z",
      "2025-02-30T00:00:00Z",
      "2025-01-31T12:00:00",
      "2025-01-31T12:00:60Z",
      "2025-01-31T12:00:00+24:00",
      "2025-01-31T12:00:00.1234567890Z",
    ]) {
      expect(pattern.test(text), text).toBe(false);
      expect(parseIsoTimestamp(text), text).toBeNull();
    }
  });
});
