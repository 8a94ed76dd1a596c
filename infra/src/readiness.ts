/**
 * Real readiness: the broker answers a metadata request through the admin client, and the registry
 * answers its Confluent-compatible API. Bounded waits only.
 */
import { type ClientConfig, createKafka, logLevel, processClientConfig } from "@a2a-ledger/kafka";
import { registryRequest, type RegistrySecurity } from "@a2a-ledger/schemas/serde";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` until it holds; fails early when `alive` says the process behind it has exited. */
export async function waitUntil(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs: number,
  onTimeout: () => string = () => "",
  alive: () => boolean = () => true,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (!alive()) throw new Error(`${what} exited before it was ready.\n${onTimeout()}`);
    if (Date.now() > deadline)
      throw new Error(`${what} was not ready after ${Math.round(timeoutMs / 1000)} s.\n${onTimeout()}`);
    await sleep(500);
  }
}

/** The cluster answers metadata requests and lists at least `nodes` brokers. */
export async function clusterAnswers(brokers: string, nodes: number, client?: ClientConfig): Promise<boolean> {
  const kafka = createKafka({
    brokers,
    clientId: "a2a-ledger-readiness",
    connectionTimeoutMs: 2_000,
    requestTimeoutMs: 5_000,
    retries: 0,
    logLevel: logLevel.NOTHING,
    ...(client === undefined ? {} : { client }),
  });
  const admin = kafka.admin();
  try {
    await admin.connect();
    const cluster = await admin.describeCluster();
    return cluster.brokers.length >= nodes && cluster.controller !== null;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

export const brokerAnswers = (brokers: string, client?: ClientConfig): Promise<boolean> =>
  clusterAnswers(brokers, 1, client);

export async function registryAnswers(url: string, security?: RegistrySecurity): Promise<boolean> {
  const response = await registryRequest(
    `${url}/subjects`,
    { timeoutMs: 5_000 },
    security ?? processClientConfig().registry,
  );
  return response.status === 200 && Array.isArray(JSON.parse(response.text));
}
