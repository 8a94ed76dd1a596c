/**
 * Shutdown drains: a batch in flight when close() starts is still acknowledged and answered 202, the
 * sink is closed only after it, and requests arriving meanwhile are refused with a stable 503.
 */
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { observation } from "../test/observations.ts";
import { testConfig } from "../test/stack.ts";
import type { ObservationSink, OutgoingRecord } from "./kafka-sink.ts";
import { buildServer } from "./server.ts";

/** A sink whose publish is acknowledged only once the test releases it: the batch stays in flight as long as the test needs. */
class SlowSink implements ObservationSink {
  readonly events: string[] = [];
  queuedRecords = 0;
  private opened!: () => void;
  private readonly gate = new Promise<void>((resolve) => {
    this.opened = resolve;
  });
  release(): void {
    this.opened();
  }
  async publish(records: readonly OutgoingRecord[]): Promise<void> {
    this.events.push(`publish ${records.length}`);
    await this.gate;
    this.events.push(`acknowledged ${records.length}`);
  }
  async kafkaReachable(): Promise<boolean> {
    return true;
  }
  async close(): Promise<void> {
    this.events.push("sink closed");
  }
}

const encoder = { encodeValidated: async (o: { eventId: string }) => Buffer.from(o.eventId) };

describe("graceful shutdown", () => {
  it("answers the in-flight batch with 202 before the sink closes", async () => {
    const sink = new SlowSink();
    const server = buildServer({
      config: testConfig(),
      sink,
      encoder,
      registryReachable: async () => true,
      logger: false,
    });
    await server.listen({ host: "127.0.0.1", port: 0 });
    const url = `http://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
    const body = JSON.stringify([observation("shutdown", 2, "c"), observation("shutdown", 3, "c")]);
    const inFlight = fetch(`${url}/v1/observations`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    await expect.poll(() => sink.events, { timeout: 10_000, interval: 5 }).toEqual(["publish 2"]);
    const closing = server.close();
    // Closing waits for the batch in flight: the sink is still open.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(sink.events).toEqual(["publish 2"]);
    sink.release();
    const response = await inFlight;
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ accepted: 2 });
    await closing;
    expect(sink.events).toEqual(["publish 2", "acknowledged 2", "sink closed"]);
  });

  it("stops accepting connections as soon as draining starts, while the in-flight batch completes", async () => {
    const sink = new SlowSink();
    const server = buildServer({
      config: testConfig(),
      sink,
      encoder,
      registryReachable: async () => true,
      logger: false,
    });
    await server.listen({ host: "127.0.0.1", port: 0 });
    const url = `http://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
    const payload = JSON.stringify(observation("shutdown", 2, "c"));
    const first = fetch(`${url}/v1/observations`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: payload,
    });
    await expect.poll(() => sink.events, { timeout: 10_000, interval: 5 }).toEqual(["publish 1"]);
    const closing = server.close();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const late = await fetch(`${url}/healthz`, { headers: { connection: "close" } }).then(
      (r) => r.status,
      (e: unknown) => (e instanceof Error ? e.name : "error"),
    );
    expect(late).not.toBe(200);
    sink.release();
    expect((await first).status).toBe(202);
    await closing;
  });
});
