import { describe, expect, it } from "vitest";
import {
  CatalogueError,
  catalogueProblems,
  cataloguePrefix,
  codesOf,
  defineErrorCatalogue,
  errorBody,
  ErrorCatalogueInvalid,
  errorCodePrefixes,
  formatMessage,
  isErrorCatalogue,
} from "./error-catalogue.ts";

describe("an error catalogue", () => {
  it("keeps its entries readable by code, in order, frozen and marked with its prefix", () => {
    const catalogue = defineErrorCatalogue("INGEST", {
      INGEST_A: { status: 400, message: "a" },
      INGEST_B_C: { status: null, message: "b" },
    });
    expect(catalogue.INGEST_A.status).toBe(400);
    expect(codesOf(catalogue)).toEqual(["INGEST_A", "INGEST_B_C"]);
    expect(Object.isFrozen(catalogue) && Object.isFrozen(catalogue.INGEST_A)).toBe(true);
    expect(isErrorCatalogue(catalogue)).toBe(true);
    expect(cataloguePrefix(catalogue)).toBe("INGEST");
    expect(isErrorCatalogue({ INGEST_A: { status: 400, message: "a" } })).toBe(false);
  });

  it("refuses, listing every problem at once, a code without its prefix, a status that is no HTTP error and an empty message", () => {
    const entries = { PROXY_X: { status: 400, message: "x" }, INGEST_lower: { status: 200, message: " " } };
    expect(() => defineErrorCatalogue("INGEST", entries as never)).toThrow(ErrorCatalogueInvalid);
    expect(catalogueProblems("INGEST", entries)).toEqual([
      "PROXY_X: a code is INGEST_ followed by upper-case words joined by _",
      "INGEST_lower: a code is INGEST_ followed by upper-case words joined by _",
      "INGEST_lower: status must be null or an HTTP error status (400-599), not 200",
      "INGEST_lower: message must be a non-empty string",
    ]);
    expect(catalogueProblems("NOBODY", {})).toEqual([
      `prefix "NOBODY" is none of ${Object.keys(errorCodePrefixes).join(", ")}`,
    ]);
  });

  it("has prefixes of which none starts another, so codes of two services never collide", () => {
    const prefixes = Object.keys(errorCodePrefixes);
    for (const a of prefixes)
      for (const b of prefixes) if (a !== b) expect(`${b}_`.startsWith(`${a}_`), `${a} and ${b}`).toBe(false);
    expect(new Set(Object.values(errorCodePrefixes)).size).toBe(prefixes.length);
  });
});

describe("a catalogue error", () => {
  const catalogue = defineErrorCatalogue("PROJECTOR", {
    PROJECTOR_GONE: { status: 404, message: "no %s named %s" },
    PROJECTOR_POISON: { status: null, message: "skipped" },
  });

  it("takes its status and default message from the entry and becomes {error, code, details?}", () => {
    const error = new CatalogueError(catalogue, "PROJECTOR_GONE");
    expect(error.status).toBe(404);
    expect(errorBody(error)).toEqual({ error: "no %s named %s", code: "PROJECTOR_GONE" });
    expect(Object.keys(errorBody(new CatalogueError(catalogue, "PROJECTOR_GONE", "gone", [1])))).toEqual([
      "error",
      "code",
      "details",
    ]);
  });

  it("answers 500 for a code that is no HTTP answer", () => {
    expect(new CatalogueError(catalogue, "PROJECTOR_POISON").status).toBe(500);
  });

  it("fills the message template in order, leaving placeholders without an argument", () => {
    expect(formatMessage(catalogue.PROJECTOR_GONE, "worker", "w-1")).toBe("no worker named w-1");
    expect(formatMessage(catalogue.PROJECTOR_GONE, "worker")).toBe("no worker named %s");
  });
});
