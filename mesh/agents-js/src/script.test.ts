import { describe, expect, it } from "vitest";
import { maxChunks, maxDelayMs, parseScript, splitIntoChunks } from "./script.ts";

describe("parseScript", () => {
  it("reads a plain question as a direct completion", () => {
    expect(parseScript("  what is the weather?  ")).toEqual({
      needInput: false,
      chunks: 1,
      delayMs: 0,
      asMediaType: null,
      question: "what is the weather?",
    });
  });

  it("reads need-input, chunks and delay anywhere in the text and removes them from the question", () => {
    expect(parseScript("need-input summarize chunks=3 the report delay-ms=250")).toEqual({
      needInput: true,
      chunks: 3,
      delayMs: 250,
      asMediaType: null,
      question: "summarize the report",
    });
  });

  it("clamps chunks and delays to their bounds", () => {
    expect(parseScript("chunks=0").chunks).toBe(1);
    expect(parseScript("chunks=999999").chunks).toBe(maxChunks);
    expect(parseScript("delay-ms=999999999").delayMs).toBe(maxDelayMs);
  });

  it("reads as=TYPE/SUBTYPE as the media type to try, and leaves a malformed one in the question", () => {
    expect(parseScript("as=application/json what?")).toMatchObject({
      asMediaType: "application/json",
      question: "what?",
    });
    expect(parseScript("as=json what?")).toMatchObject({ asMediaType: null, question: "as=json what?" });
  });

  it("does not read directives glued to other words", () => {
    expect(parseScript("xneed-input chunks=3x delay-ms=abc")).toEqual({
      needInput: false,
      chunks: 1,
      delayMs: 0,
      asMediaType: null,
      question: "xneed-input chunks=3x delay-ms=abc",
    });
  });
});

describe("splitIntoChunks", () => {
  it("splits into n pieces that join back to the text", () => {
    const pieces = splitIntoChunks("abcdefghij", 3);
    expect(pieces).toHaveLength(3);
    expect(pieces.join("")).toBe("abcdefghij");
  });

  it("never yields more pieces than characters, and one piece for empty text", () => {
    expect(splitIntoChunks("ab", 5)).toEqual(["a", "b"]);
    expect(splitIntoChunks("", 3)).toEqual([""]);
  });
});
