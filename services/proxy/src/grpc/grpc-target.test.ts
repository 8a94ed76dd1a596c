import { describe, expect, it } from "vitest";
import { grpcTargetOfCard, parseGrpcTarget, rewriteGrpcCardUrls } from "./grpc-target.ts";

describe("parseGrpcTarget", () => {
  it("reads host:port and the URL forms, cleartext or TLS", () => {
    expect(parseGrpcTarget("127.0.0.1:21101")).toEqual({ target: "127.0.0.1:21101", origin: "http://127.0.0.1:21101" });
    expect(parseGrpcTarget("grpc://w1.internal:50051/")).toEqual({
      target: "w1.internal:50051",
      origin: "http://w1.internal:50051",
    });
    expect(parseGrpcTarget("https://w1.example:443")).toEqual({
      target: "w1.example:443",
      origin: "https://w1.example:443",
    });
    expect(parseGrpcTarget("[::1]:9000")?.origin).toBe("http://[::1]:9000");
  });

  it("refuses what is not a host and a port", () => {
    for (const bad of [
      "",
      "127.0.0.1",
      ":80",
      "w1:0",
      "w1:70000",
      "ftp://w1:21",
      "http://w1:80/path",
      "dns:///w1:80",
      "w 1:80",
      "user@w1:80",
    ])
      expect(parseGrpcTarget(bad)).toBeNull();
  });
});

const card = {
  name: "W1",
  supportedInterfaces: [
    { url: "http://127.0.0.1:21001/a2a/jsonrpc", protocolBinding: "JSONRPC", protocolVersion: "1.0" },
    { url: "127.0.0.1:21101", protocolBinding: "GRPC", protocolVersion: "1.0" },
    { url: "127.0.0.1:21201", protocolBinding: "GRPC", protocolVersion: "0.3" },
  ],
};

describe("grpcTargetOfCard", () => {
  it("takes the v1.0 GRPC interface, else the first one, else none", () => {
    expect(grpcTargetOfCard(card)?.target).toBe("127.0.0.1:21101");
    expect(grpcTargetOfCard({ ...card, supportedInterfaces: [card.supportedInterfaces[2]] })?.target).toBe(
      "127.0.0.1:21201",
    );
    expect(
      grpcTargetOfCard({ url: "http://x", additionalInterfaces: [{ url: "w:1", transport: "GRPC" }] })?.target,
    ).toBe("w:1");
    for (const none of [{ name: "x" }, null, "card", { supportedInterfaces: [{ url: 7, protocolBinding: "GRPC" }] }])
      expect(grpcTargetOfCard(none)).toBeNull();
  });
});

describe("rewriteGrpcCardUrls", () => {
  it("moves the GRPC interface that names the worker to the proxy, leaving every other byte", () => {
    const text = JSON.stringify(card, null, 2);
    const rewritten = rewriteGrpcCardUrls(
      text,
      { target: "127.0.0.1:21101", origin: "http://127.0.0.1:21101" },
      "127.0.0.1:22101",
    );
    expect(rewritten).toBe(text.replace('"127.0.0.1:21101"', '"127.0.0.1:22101"'));
    expect(rewriteGrpcCardUrls("not json", { target: "a:1", origin: "http://a:1" }, "b:2")).toBe("not json");
  });
});
