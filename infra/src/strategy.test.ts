import { describe, expect, it } from "vitest";
import { selectStrategy } from "./strategy.ts";

const none = { externalBrokers: undefined, dockerEngine: false, forced: undefined };

describe("selectStrategy", () => {
  it("uses the cluster named by KAFKA_BROKERS before anything else", () => {
    expect(selectStrategy({ ...none, externalBrokers: "k:9092", dockerEngine: true })).toBe("external");
  });
  it("uses testcontainers when a Docker engine answers", () => {
    expect(selectStrategy({ ...none, dockerEngine: true })).toBe("docker");
  });
  it("launches native JVM processes when there is neither", () => {
    expect(selectStrategy(none)).toBe("native");
  });
  it("honours a forced strategy", () => {
    expect(selectStrategy({ ...none, dockerEngine: true, forced: "native" })).toBe("native");
  });
  it("rejects a forced external strategy without brokers", () => {
    expect(() => selectStrategy({ ...none, forced: "external" })).toThrow(/KAFKA_BROKERS/);
  });
  it("rejects an unknown forced strategy by name", () => {
    expect(() => selectStrategy({ ...none, forced: "podman" })).toThrow(/"podman"/);
  });
});
