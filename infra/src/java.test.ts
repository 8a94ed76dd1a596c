import { describe, expect, it } from "vitest";
import { findJava, MissingToolError, parseJavaMajor } from "./java.ts";

describe("parseJavaMajor", () => {
  it("reads modern version strings", () => {
    expect(parseJavaMajor('openjdk version "17.0.15" 2025-04-15')).toBe(17);
    expect(parseJavaMajor('openjdk version "25.0.3" 2026-04-21 LTS')).toBe(25);
    expect(parseJavaMajor('openjdk version "21" 2023-09-19')).toBe(21);
  });
  it("reads the legacy 1.x scheme", () => {
    expect(parseJavaMajor('java version "1.8.0_392"')).toBe(8);
  });
  it("returns undefined for anything else", () => {
    expect(parseJavaMajor("command not found")).toBeUndefined();
  });
});

describe("findJava", () => {
  it("names what to install when no runtime is new enough", () => {
    const env = { PATH: "/nonexistent" } as NodeJS.ProcessEnv;
    expect(() => findJava(999, "The test")).toThrow(MissingToolError);
    expect(() => findJava(999, "The test", env)).toThrow(/needs Java 999 or newer.*Install a JDK 999\+/s);
  });
  it("finds a Java 17+ runtime for the broker on this machine", () => {
    expect(findJava(17, "Kafka").major).toBeGreaterThanOrEqual(17);
  });
});
