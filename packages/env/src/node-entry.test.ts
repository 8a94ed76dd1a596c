import { describe, expect, it } from "vitest";
import { compiledEnv, siblingNodeArgs, withoutSourceCondition, withSourceCondition } from "./node-entry.ts";

describe("siblingNodeArgs", () => {
  it("runs a sibling of TypeScript source through tsx, as TypeScript", () => {
    expect(siblingNodeArgs("file:///repo/services/x/src/processes.ts", "./main")).toEqual([
      "--import",
      "tsx",
      "/repo/services/x/src/main.ts",
    ]);
  });

  it("runs a sibling of compiled code as plain JavaScript, with no loader", () => {
    expect(siblingNodeArgs("file:///repo/services/x/dist/processes.js", "./main")).toEqual([
      "/repo/services/x/dist/main.js",
    ]);
  });

  it("resolves relative paths from the caller's directory", () => {
    expect(siblingNodeArgs("file:///repo/infra/dist/secured-stack.js", "../dist/registry-front")).toEqual([
      "/repo/infra/dist/registry-front.js",
    ]);
  });
});

describe("the source condition in NODE_OPTIONS", () => {
  it("is added once, after the options already there", () => {
    expect(withSourceCondition(undefined)).toBe("--conditions=development");
    expect(withSourceCondition("--max-old-space-size=512")).toBe("--max-old-space-size=512 --conditions=development");
    expect(withSourceCondition("--conditions=development")).toBe("--conditions=development");
  });

  it("is taken out in each spelling node accepts, and nothing else is", () => {
    expect(withoutSourceCondition("--conditions=development")).toBeUndefined();
    expect(
      withoutSourceCondition("--max-old-space-size=512 -C development --conditions development --enable-source-maps"),
    ).toBe("--max-old-space-size=512 --enable-source-maps");
    expect(withoutSourceCondition("--conditions=other")).toBe("--conditions=other");
    expect(withoutSourceCondition(undefined)).toBeUndefined();
  });
});

describe("compiledEnv", () => {
  it("keeps every variable and every other node option, and drops NODE_OPTIONS when only the condition was in it", () => {
    expect(compiledEnv({ A: "1", NODE_OPTIONS: "--conditions=development" })).toEqual({ A: "1" });
    expect(compiledEnv({ A: "1", NODE_OPTIONS: "--enable-source-maps --conditions=development" })).toEqual({
      A: "1",
      NODE_OPTIONS: "--enable-source-maps",
    });
    expect(compiledEnv({ A: "1" })).toEqual({ A: "1" });
  });
});
