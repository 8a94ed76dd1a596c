import { describe, expect, it } from "vitest";
import { rewriteCardUrls } from "./card-rewrite.ts";

const worker = "http://127.0.0.1:4001";
const proxy = "http://127.0.0.1:5001";

describe("rewriteCardUrls", () => {
  it("moves v1.0 interface URLs under the proxy and leaves every other byte alone", () => {
    const card = `{"name":"W","provider":{"url":"http://127.0.0.1:4001/about"},"supportedInterfaces":[{"url":"http://127.0.0.1:4001/a2a/jsonrpc","protocolBinding":"JSONRPC"},{"url":"https://elsewhere.example/a2a","protocolBinding":"HTTP+JSON"}]}`;
    expect(rewriteCardUrls(card, [worker], proxy)).toBe(
      `{"name":"W","provider":{"url":"http://127.0.0.1:4001/about"},"supportedInterfaces":[{"url":"http://127.0.0.1:5001/a2a/jsonrpc","protocolBinding":"JSONRPC"},{"url":"https://elsewhere.example/a2a","protocolBinding":"HTTP+JSON"}]}`,
    );
  });

  it("moves v0.3 url and additionalInterfaces, keeps pretty printing, and honours aliases", () => {
    const card = JSON.stringify(
      {
        url: "http://localhost:4001/a2a",
        additionalInterfaces: [{ url: "http://localhost:4001/rest", transport: "HTTP+JSON" }],
      },
      null,
      2,
    );
    const out = rewriteCardUrls(card, [worker, "http://localhost:4001"], proxy);
    expect(JSON.parse(out)).toEqual({
      url: "http://127.0.0.1:5001/a2a",
      additionalInterfaces: [{ url: "http://127.0.0.1:5001/rest", transport: "HTTP+JSON" }],
    });
    expect(out.split("\n")).toHaveLength(card.split("\n").length);
  });

  it("does not take a longer port or host for the worker's", () => {
    const card = `{"supportedInterfaces":[{"url":"http://127.0.0.1:20011/a2a"}]}`;
    expect(rewriteCardUrls(card, [worker], proxy)).toBe(card);
  });

  it("returns text that is not a JSON object unchanged", () => {
    for (const text of ["not json", "[1,2]", "", "null"]) expect(rewriteCardUrls(text, [worker], proxy)).toBe(text);
  });
});
