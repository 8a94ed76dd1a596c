import { describe, expect, it } from "vitest";
import { parseWorkerConfig, WorkerConfigError } from "./worker-config.ts";

const defaults = { outputMediaType: "application/json" } as const;

describe("parseWorkerConfig", () => {
  it("reads the output media type and keeps the default when it is left out", () => {
    expect(parseWorkerConfig({ outputMediaType: "text/plain" }, defaults)).toEqual({ outputMediaType: "text/plain" });
    expect(parseWorkerConfig({}, defaults)).toEqual(defaults);
  });

  it("refuses other media types, unknown fields and non-objects", () => {
    expect(() => parseWorkerConfig({ outputMediaType: "image/png" }, defaults)).toThrow(WorkerConfigError);
    expect(() => parseWorkerConfig({ outputMediaType: "text/plain", extra: 1 }, defaults)).toThrow(
      /unknown worker configuration field "extra"/,
    );
    for (const bad of [null, [], "text/plain", 3])
      expect(() => parseWorkerConfig(bad, defaults)).toThrow(/must be a JSON object/);
  });
});
