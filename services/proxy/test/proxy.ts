/** A proxy for the tests: the real app on 127.0.0.1:0, in front of one worker, recording into a sender. */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { metricSum, metricValue } from "@a2a-ledger/env/testing";
import type { ObservationInput } from "@a2a-ledger/ingest-client";
import { createProxyApp, type ProxyApp } from "../src/app.ts";
import { configDefaults, type ProxyConfig } from "../src/config.ts";
import { createLogger } from "@a2a-ledger/logging";
import type { ObservationSender } from "../src/observation-buffer.ts";

/** A fresh, empty spool directory. */
export const freshSpoolDir = (): string => mkdtempSync(join(tmpdir(), "proxy-spool-"));

export function testConfig(overrides: Partial<ProxyConfig> & Pick<ProxyConfig, "upstreamUrl">): ProxyConfig {
  return {
    ...configDefaults,
    workerId: "W1",
    host: "127.0.0.1",
    port: 0,
    publicUrl: null,
    rewriteCardUrls: false,
    cardUrlAliases: [],
    grpcPort: null,
    grpcUpstream: null,
    grpcPublicTarget: null,
    ingestToken: null,
    projectorUrl: null,
    projectorToken: null,
    observer: "proxy:W1",
    logLevel: "silent",
    flushDelayMs: 0,
    spoolDir: freshSpoolDir(),
    ...overrides,
  };
}

/** Keeps what it is sent; fails while `failing` is set. */
export class CapturingSender implements ObservationSender {
  readonly sent: ObservationInput[] = [];
  attempts = 0;
  failing = false;

  async send(events: readonly ObservationInput[]): Promise<unknown> {
    this.attempts++;
    if (this.failing) throw new Error("ledger down (test)");
    this.sent.push(...events);
    return { accepted: events.length };
  }

  ofType<T extends ObservationInput["type"]>(type: T): Extract<ObservationInput, { type: T }>[] {
    return this.sent.filter((o): o is Extract<ObservationInput, { type: T }> => o.type === type);
  }
}

export interface TestProxy {
  url: string;
  app: ProxyApp;
  close(): Promise<void>;
}

export async function startProxy(config: ProxyConfig, sender?: ObservationSender): Promise<TestProxy> {
  const app = createProxyApp(config, {
    logger: createLogger("proxy", "silent"),
    ...(sender === undefined ? {} : { sender }),
  });
  const url = await app.listen();
  return { url, app, close: () => app.close() };
}

/** Resolves once the buffer is empty (every offered observation was sent or dropped). */
export async function drained(app: ProxyApp, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (app.buffer.length > 0) {
    if (Date.now() > deadline) throw new Error(`buffer still holds ${app.buffer.length} observations`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A metric's value from the proxy's /metrics text (0 when absent). */
export async function metric(proxyUrl: string, name: string, labels: Record<string, string> = {}): Promise<number> {
  return metricValue(await (await fetch(`${proxyUrl}/metrics`)).text(), name, labels);
}

/** The sum of a counter's samples over the labels not given, from the proxy's /metrics text. */
export async function metricTotal(
  proxyUrl: string,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  return metricSum(await (await fetch(`${proxyUrl}/metrics`)).text(), name, labels);
}
