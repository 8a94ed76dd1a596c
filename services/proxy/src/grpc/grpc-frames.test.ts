import { describe, expect, it } from "vitest";
import { frameMessage, GrpcMessageReader, type FrameProblem, type GrpcMessage } from "./grpc-frames.ts";

function reader(max = 1024) {
  const messages: GrpcMessage[] = [];
  const problems: FrameProblem[] = [];
  const r = new GrpcMessageReader({ message: (m) => messages.push(m), problem: (p) => problems.push(p) }, max);
  return { r, messages, problems };
}

describe("GrpcMessageReader", () => {
  it("reassembles messages however the stream is cut into chunks", () => {
    const stream = Buffer.concat([
      frameMessage(Buffer.from("first")),
      frameMessage(Buffer.alloc(0)),
      frameMessage(Buffer.from("third"), true),
    ]);
    for (let cut = 1; cut <= 7; cut++) {
      const { r, messages, problems } = reader();
      for (let i = 0; i < stream.length; i += cut) r.push(stream.subarray(i, i + cut));
      r.end();
      expect(messages.map((m) => [m.bytes.toString(), m.compressed])).toEqual([
        ["first", false],
        ["", false],
        ["third", true],
      ]);
      expect(problems).toEqual([]);
      expect(r.messages).toBe(3);
    }
  });

  it("skips a message over the bound without holding it, reports it, and reads the next one", () => {
    const { r, messages, problems } = reader(8);
    r.push(Buffer.concat([frameMessage(Buffer.alloc(20, 1)).subarray(0, 12)]));
    r.push(Buffer.concat([frameMessage(Buffer.alloc(20, 1)).subarray(12), frameMessage(Buffer.from("ok"))]));
    r.end();
    expect(problems).toEqual(["oversized"]);
    expect(messages.map((m) => m.bytes.toString())).toEqual(["ok"]);
    expect(r.messages).toBe(2);
  });

  it("stops reading at a flag byte that is neither 0 nor 1", () => {
    const { r, messages, problems } = reader();
    const bad = frameMessage(Buffer.from("x"));
    bad[0] = 7;
    r.push(Buffer.concat([frameMessage(Buffer.from("a")), bad, frameMessage(Buffer.from("b"))]));
    r.end();
    expect(messages.map((m) => m.bytes.toString())).toEqual(["a"]);
    expect(problems).toEqual(["malformed"]);
  });

  it("reports a stream that ends inside a prefix or a message as truncated", () => {
    for (const cut of [3, 7]) {
      const { r, messages, problems } = reader();
      r.push(frameMessage(Buffer.from("hello")).subarray(0, cut));
      r.end();
      expect(messages).toEqual([]);
      expect(problems).toEqual(["truncated"]);
    }
  });

  it("reads a length prefix of 4 GiB as one oversized message, never as a buffer to allocate", () => {
    const { r, problems } = reader();
    r.push(Buffer.from([0, 0xff, 0xff, 0xff, 0xff, 1, 2, 3]));
    r.end();
    expect(problems).toEqual(["oversized", "truncated"]);
  });
});
