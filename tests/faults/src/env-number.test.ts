import { afterEach, describe, expect, it } from "vitest";
import { positiveNumber } from "./env-number.ts";

const name = "FAULTS_TEST_ENV_NUMBER";
afterEach(() => {
  delete process.env[name];
});

describe("positiveNumber", () => {
  it("reads a positive number, falls back when unset or blank, and names a bad value", () => {
    expect(positiveNumber(name, 7)).toBe(7);
    process.env[name] = "  ";
    expect(positiveNumber(name, 7)).toBe(7);
    process.env[name] = "2.5";
    expect(positiveNumber(name, 7)).toBe(2.5);
    for (const bad of ["0", "-1", "ten", "Infinity"]) {
      process.env[name] = bad;
      expect(() => positiveNumber(name, 7)).toThrow(`${name}=${JSON.stringify(bad)}: expected a positive number`);
    }
  });
});
