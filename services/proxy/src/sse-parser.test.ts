import { describe, expect, it } from "vitest";
import { SseParser, type SseEvent } from "./sse-parser.ts";

function parse(chunks: (string | Buffer)[], maxEventBytes?: number): { events: SseEvent[]; oversized: number } {
  const events: SseEvent[] = [];
  let oversized = 0;
  const parser = new SseParser(
    (e) => events.push(e),
    () => oversized++,
    maxEventBytes,
  );
  for (const c of chunks) parser.push(typeof c === "string" ? Buffer.from(c) : c);
  parser.end();
  return { events, oversized };
}

describe("SseParser", () => {
  it("dispatches each event at its blank line, with the event name and joined data lines", () => {
    const { events } = parse(['data: {"a":1}\n\nevent: error\ndata: x\ndata: y\n\n']);
    expect(events).toEqual([
      { event: "message", data: '{"a":1}' },
      { event: "error", data: "x\ny" },
    ]);
  });

  it("reassembles lines split anywhere, CRLF and CR line ends included", () => {
    const text = "data: first\r\n\r\ndata: sec\rdata: ond\r\r: comment\ndata:third\n\n";
    const whole = parse([text]).events;
    for (let cut = 1; cut < text.length; cut++)
      expect(parse([text.slice(0, cut), text.slice(cut)]).events).toEqual(whole);
    expect(whole).toEqual([
      { event: "message", data: "first" },
      { event: "message", data: "sec\nond" },
      { event: "message", data: "third" },
    ]);
  });

  it("keeps a multi-byte character that a chunk boundary splits", () => {
    const bytes = Buffer.from("data: é€😀\n\n");
    for (let cut = 1; cut < bytes.length; cut++) {
      expect(parse([bytes.subarray(0, cut), bytes.subarray(cut)]).events).toEqual([{ event: "message", data: "é€😀" }]);
    }
  });

  it("does not dispatch an unterminated last event", () => {
    expect(parse(["data: done\n\ndata: cut off"]).events).toEqual([{ event: "message", data: "done" }]);
  });

  it("skips an event over the size limit, reports it once and goes on with the next", () => {
    const { events, oversized } = parse([`data: ${"x".repeat(100)}\ndata: more\n\ndata: small\n\n`], 50);
    expect(events).toEqual([{ event: "message", data: "small" }]);
    expect(oversized).toBe(1);
  });

  it("bounds a single line that never ends", () => {
    const { events, oversized } = parse(["data: ", "y".repeat(80), "z".repeat(80)], 100);
    expect(events).toEqual([]);
    expect(oversized).toBe(1);
  });
});
