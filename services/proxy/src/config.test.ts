import { describe, expect, it } from "vitest";
import { describeRenamedSettings } from "@a2a-ledger/env/testing";
import { ConfigError } from "@a2a-ledger/env";
import { baseUrl, configDefaults, loadConfig } from "./config.ts";

const minimal = { A2A_LEDGER_PROXY_WORKER_ID: "W1", A2A_LEDGER_PROXY_UPSTREAM_URL: "http://127.0.0.1:4001/" };

describe("loadConfig", () => {
  it("fills defaults around the two required values", () => {
    const config = loadConfig(minimal);
    expect(config).toMatchObject({
      workerId: "W1",
      upstreamUrl: "http://127.0.0.1:4001",
      host: configDefaults.host,
      port: configDefaults.port,
      observer: "proxy:W1",
      failMode: "closed",
      rewriteCardUrls: false,
      publicUrl: null,
      ingestUrl: "http://127.0.0.1:18090",
      ingestToken: null,
    });
  });

  it("puts the spool under the data directory, one directory per worker (and topic suffix), safe as a path", () => {
    expect(loadConfig({ ...minimal, A2A_LEDGER_DATA_DIR: "/var/lib/ledger" }).spoolDir).toBe(
      "/var/lib/ledger/proxy/W1",
    );
    expect(
      loadConfig({ ...minimal, A2A_LEDGER_DATA_DIR: "/var/lib/ledger", A2A_LEDGER_TOPIC_SUFFIX: "e2e-1" }).spoolDir,
    ).toBe("/var/lib/ledger/proxy/W1.e2e-1");
    expect(
      loadConfig({ ...minimal, A2A_LEDGER_PROXY_WORKER_ID: "../../etc", A2A_LEDGER_DATA_DIR: "/d" }).spoolDir,
    ).toBe("/d/proxy/%2E%2E%2F%2E%2E%2Fetc");
    expect(loadConfig({ ...minimal, A2A_LEDGER_PROXY_SPOOL_DIR: "/tmp/spool-x/" }).spoolDir).toBe("/tmp/spool-x");
    expect(loadConfig(minimal).spoolMaxBytes).toBe(configDefaults.spoolMaxBytes);
    expect(loadConfig({ ...minimal, A2A_LEDGER_PROXY_SPOOL_MAX_BYTES: "1048576" }).spoolMaxBytes).toBe(1_048_576);
    for (const bad of ["0", "1000", "-5", "12MB", "1e9"])
      expect(() => loadConfig({ ...minimal, A2A_LEDGER_PROXY_SPOOL_MAX_BYTES: bad })).toThrow(
        /A2A_LEDGER_PROXY_SPOOL_MAX_BYTES/,
      );
  });

  it("reads every setting", () => {
    const config = loadConfig({
      ...minimal,
      A2A_LEDGER_PROXY_PORT: "0",
      A2A_LEDGER_PROXY_PUBLIC_URL: "http://proxy.example:8080/",
      A2A_LEDGER_PROXY_REWRITE_CARD_URLS: "true",
      A2A_LEDGER_PROXY_CARD_URL_ALIASES: "http://localhost:4001, http://w1.internal",
      A2A_LEDGER_PROXY_INGEST_URL: "http://127.0.0.1:9/",
      A2A_LEDGER_PROXY_INGEST_TOKEN: "s3cret-token-value",
      A2A_LEDGER_PROXY_FAIL_MODE: "open",
      A2A_LEDGER_PROXY_BUFFER_MAX: "7",
      A2A_LEDGER_PROXY_UPSTREAM_TIMEOUT_MS: "250",
    });
    expect(config).toMatchObject({
      port: 0,
      publicUrl: "http://proxy.example:8080",
      rewriteCardUrls: true,
      cardUrlAliases: ["http://localhost:4001", "http://w1.internal"],
      ingestUrl: "http://127.0.0.1:9",
      failMode: "open",
      bufferMax: 7,
      upstreamTimeoutMs: 250,
    });
  });

  it("reports every bad value at once, by name, without echoing the token", () => {
    try {
      loadConfig({
        A2A_LEDGER_PROXY_UPSTREAM_URL: "ftp://x",
        A2A_LEDGER_PROXY_PORT: "70000",
        A2A_LEDGER_PROXY_FAIL_MODE: "maybe",
        A2A_LEDGER_PROXY_REWRITE_CARD_URLS: "perhaps",
        A2A_LEDGER_PROXY_INGEST_TOKEN: "has space",
        A2A_LEDGER_PROXY_BUFFER_MAX: "0",
        A2A_LEDGER_PROXY_LOG_LEVEL: "loud",
      });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      const problems = (e as ConfigError).problems.join("\n");
      for (const name of [
        "A2A_LEDGER_PROXY_WORKER_ID is required",
        "A2A_LEDGER_PROXY_UPSTREAM_URL",
        "A2A_LEDGER_PROXY_PORT",
        "A2A_LEDGER_PROXY_FAIL_MODE",
        "A2A_LEDGER_PROXY_REWRITE_CARD_URLS",
        "A2A_LEDGER_PROXY_INGEST_TOKEN",
        "A2A_LEDGER_PROXY_BUFFER_MAX",
        "A2A_LEDGER_PROXY_LOG_LEVEL",
      ])
        expect(problems).toContain(name);
      expect(problems).not.toContain("has space");
    }
  });
});

describe("loadConfig: refusals", () => {
  it("is a configuration problem like any other, not a crash deriving the spool from it", () => {
    let error: unknown;
    try {
      loadConfig({ ...minimal, A2A_LEDGER_PROXY_WORKER_ID: "my worker" });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      'A2A_LEDGER_PROXY_WORKER_ID="my worker" must be 1–200 visible ASCII characters',
    ]);
  });

  it("refuses a URL with credentials without quoting its password", () => {
    expect(() => loadConfig({ ...minimal, A2A_LEDGER_PROXY_INGEST_URL: "https://ops:hunter2@ingest:18090" })).toThrow(
      'A2A_LEDGER_PROXY_INGEST_URL="https://ops:***@ingest:18090/" must be an http(s) URL',
    );
    try {
      loadConfig({ ...minimal, A2A_LEDGER_PROXY_INGEST_URL: "https://ops:hunter2@ingest:18090" });
    } catch (e) {
      expect((e as ConfigError).message).not.toContain("hunter2");
    }
  });

  it("with the verified card and a malformed projector URL, names the URL only", () => {
    let error: unknown;
    try {
      loadConfig({ ...minimal, A2A_LEDGER_PROXY_CARD: "verified", A2A_LEDGER_PROXY_PROJECTOR_URL: "ftp://x" });
    } catch (e) {
      error = e;
    }
    expect((error as ConfigError).problems).toEqual([
      'A2A_LEDGER_PROXY_PROJECTOR_URL="ftp://x" must be an http(s) URL without query, fragment or credentials',
    ]);
  });
});

describe("loadConfig: the card served", () => {
  it("serves the advertised card by default, and the verified one with A2A_LEDGER_PROXY_CARD=verified and the projector's URL and token", () => {
    expect(loadConfig(minimal)).toMatchObject({
      cardMode: "advertised",
      projectorUrl: null,
      projectorToken: null,
      projectorTimeoutMs: configDefaults.projectorTimeoutMs,
    });
    expect(
      loadConfig({
        ...minimal,
        A2A_LEDGER_PROXY_CARD: "verified",
        A2A_LEDGER_PROXY_PROJECTOR_URL: "http://127.0.0.1:18110/",
        A2A_LEDGER_PROXY_PROJECTOR_TOKEN: "read-token",
        A2A_LEDGER_PROXY_PROJECTOR_TIMEOUT_MS: "500",
      }),
    ).toMatchObject({
      cardMode: "verified",
      projectorUrl: "http://127.0.0.1:18110",
      projectorToken: "read-token",
      projectorTimeoutMs: 500,
    });
  });

  it("reports a bad mode, a verified mode without projector, a bad URL and a token with whitespace (not shown)", () => {
    expect(() => loadConfig({ ...minimal, A2A_LEDGER_PROXY_CARD: "both" })).toThrow(
      /A2A_LEDGER_PROXY_CARD="both" must be advertised or verified/,
    );
    expect(() => loadConfig({ ...minimal, A2A_LEDGER_PROXY_CARD: "verified" })).toThrow(
      /A2A_LEDGER_PROXY_CARD=verified needs A2A_LEDGER_PROXY_PROJECTOR_URL/,
    );
    expect(() =>
      loadConfig({ ...minimal, A2A_LEDGER_PROXY_CARD: "verified", A2A_LEDGER_PROXY_PROJECTOR_URL: "http://p/?x=1" }),
    ).toThrow(/A2A_LEDGER_PROXY_PROJECTOR_URL/);
    expect(() => loadConfig({ ...minimal, A2A_LEDGER_PROXY_PROJECTOR_TIMEOUT_MS: "10" })).toThrow(
      /A2A_LEDGER_PROXY_PROJECTOR_TIMEOUT_MS/,
    );
    try {
      loadConfig({ ...minimal, A2A_LEDGER_PROXY_PROJECTOR_TOKEN: "two words" });
      expect.unreachable();
    } catch (e) {
      expect((e as ConfigError).problems.join("\n")).toContain(
        "A2A_LEDGER_PROXY_PROJECTOR_TOKEN must not contain whitespace",
      );
      expect((e as ConfigError).problems.join("\n")).not.toContain("two words");
    }
  });
});

describe("loadConfig: the gRPC relay", () => {
  it("is off without A2A_LEDGER_PROXY_GRPC_PORT, and reads its port, upstream and public target", () => {
    expect(loadConfig(minimal)).toMatchObject({ grpcPort: null, grpcUpstream: null, grpcPublicTarget: null });
    expect(loadConfig({ ...minimal, A2A_LEDGER_PROXY_GRPC_PORT: "0" })).toMatchObject({
      grpcPort: 0,
      grpcUpstream: null,
    });
    expect(
      loadConfig({
        ...minimal,
        A2A_LEDGER_PROXY_GRPC_PORT: "22101",
        A2A_LEDGER_PROXY_GRPC_UPSTREAM: "grpcs://w1.internal:443",
        A2A_LEDGER_PROXY_GRPC_PUBLIC_TARGET: "proxy.example:8443",
      }),
    ).toMatchObject({
      grpcPort: 22101,
      grpcUpstream: { target: "w1.internal:443", origin: "https://w1.internal:443" },
      grpcPublicTarget: "proxy.example:8443",
    });
  });

  it("reports a bad port, a target that is not host:port, and gRPC settings without the relay", () => {
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig({ ...minimal, ...env });
        return "";
      } catch (e) {
        return (e as ConfigError).problems.join("\n");
      }
    };
    expect(problems({ A2A_LEDGER_PROXY_GRPC_PORT: "70000" })).toContain("A2A_LEDGER_PROXY_GRPC_PORT");
    expect(problems({ A2A_LEDGER_PROXY_GRPC_PORT: "0", A2A_LEDGER_PROXY_GRPC_UPSTREAM: "http://w1/a2a" })).toContain(
      "A2A_LEDGER_PROXY_GRPC_UPSTREAM",
    );
    expect(problems({ A2A_LEDGER_PROXY_GRPC_PORT: "0", A2A_LEDGER_PROXY_GRPC_PUBLIC_TARGET: "no-port" })).toContain(
      "A2A_LEDGER_PROXY_GRPC_PUBLIC_TARGET",
    );
    expect(problems({ A2A_LEDGER_PROXY_GRPC_UPSTREAM: "127.0.0.1:21101" })).toContain(
      "need A2A_LEDGER_PROXY_GRPC_PORT",
    );
  });
});

describe("baseUrl", () => {
  it("keeps scheme, host, port and path without trailing slashes, and refuses the rest", () => {
    expect(baseUrl("https://w.example:8443/a2a/")).toBe("https://w.example:8443/a2a");
    for (const bad of [
      "w.example",
      "ftp://w.example",
      "http://w.example/?q=1",
      "http://user:pw@w.example",
      "http://w.example/#x",
    ])
      expect(baseUrl(bad)).toBeNull();
  });
});

describeRenamedSettings({
  service: "PROXY",
  load: loadConfig,
  required: minimal,
  alsoBad: { env: { A2A_LEDGER_PROXY_FAIL_MODE: "maybe" }, mentions: "A2A_LEDGER_PROXY_FAIL_MODE" },
});
