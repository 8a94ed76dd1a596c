import { describe, expect, it } from "vitest";
import { endToEndHeaders, rawHeader } from "./hop-by-hop.ts";

describe("endToEndHeaders", () => {
  it("drops hop-by-hop headers and those the Connection header names, keeping order and spelling", () => {
    const raw = [
      "Host",
      "w",
      "Connection",
      "keep-alive, X-Hop",
      "X-Hop",
      "1",
      "Transfer-Encoding",
      "chunked",
      "A2A-Version",
      "1.0",
      "Keep-Alive",
      "timeout=5",
      "x-multi",
      "a",
      "x-multi",
      "b",
      "TE",
      "trailers",
      "Upgrade",
      "h2c",
    ];
    expect(endToEndHeaders(raw)).toEqual(["Host", "w", "A2A-Version", "1.0", "x-multi", "a", "x-multi", "b"]);
  });

  it("drops extra names on request", () => {
    expect(endToEndHeaders(["Content-Length", "10", "ETag", "x"], ["content-length"])).toEqual(["ETag", "x"]);
  });

  it("finds a header by name in any case", () => {
    expect(rawHeader(["Content-Type", "text/event-stream"], "content-type")).toBe("text/event-stream");
    expect(rawHeader([], "content-type")).toBeUndefined();
  });
});
