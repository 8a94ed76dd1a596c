/** The source a snapshot record names in its headers: written and read back, and anything else read as none. */
import { describe, expect, it } from "vitest";
import { sourceHeaders, sourceOf } from "./capability-follower.ts";

describe("a snapshot's source headers", () => {
  it("read back what was written, as strings or as the bytes a consumer gets", () => {
    const headers = sourceHeaders({ partition: 4, offset: 1_234_567 });
    expect(sourceOf(headers)).toEqual({ partition: 4, offset: 1_234_567 });
    expect(sourceOf(Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, Buffer.from(v)])))).toEqual({
      partition: 4,
      offset: 1_234_567,
    });
  });

  it("name no source when absent, partial, negative, not decimal or absurdly long (the snapshot still applies)", () => {
    expect(sourceOf(undefined)).toBeUndefined();
    expect(sourceOf({})).toBeUndefined();
    expect(sourceOf({ "a2a-source-partition": "1" })).toBeUndefined();
    for (const bad of ["-1", "1e3", "0x10", " 1", "", "9".repeat(16), "١٢"])
      expect(sourceOf({ "a2a-source-partition": "1", "a2a-source-offset": bad }), bad).toBeUndefined();
  });
});
