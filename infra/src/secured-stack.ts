/**
 * The launcher's secured mode (A2A_LEDGER_KAFKA_SECURITY=secured, `infra:up -- --secured`): Kafka with
 * SASL_SSL and SSL (mTLS) listeners and StandardAuthorizer, the ledger's ACLs applied per service
 * principal (packages/kafka acls.ts), Apicurio's kafkasql storage over mTLS as `User:registry`, and
 * the registry behind a TLS front with basic auth. Every principal's client properties files are in
 * `<data dir>/secrets`; `admin` (a super user) applies topics, ACLs and schemas.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { siblingNodeArgs } from "@a2a-ledger/env";
import {
  applyAcls,
  type ClientConfig,
  createKafka,
  ledgerServices,
  loadClientConfig,
  logLevel,
  type AclRule,
  defaultAclNames,
  serviceAcls,
  defaultPrincipal,
  type AclNames,
} from "@a2a-ledger/kafka";
import { repoRoot, type StackConfig } from "./config.ts";
import { type ProcessFiles, runningPid, startDetached, stopProcess, tail } from "./jvm-process.ts";
import { brokersOf, kafkaNodes, startKafka } from "./native-kafka.ts";
import { registryUrlOf, startRegistry } from "./native-registry.ts";
import { registryAnswers, waitUntil } from "./readiness.ts";
import { type ClientFiles, ensureSecrets, principals, type Principal, writeClientProperties } from "./secrets.ts";

export const registryJournalTopic = "kafkasql-journal";
const registryGroupPrefix = "a2a-ledger-registry-";

/** What the registry's kafkasql storage needs: its journal, snapshot and event topics (created by it), its groups. */
export const registryAcls: AclRule[] = [
  {
    resource: { type: "topic", name: registryJournalTopic, pattern: "prefixed" },
    operations: ["Read", "Write", "Create", "Describe", "DescribeConfigs"],
    why: "the registry's kafkasql journal, snapshots and events",
  },
  {
    resource: { type: "group", name: registryGroupPrefix, pattern: "prefixed" },
    operations: ["Read"],
    why: "the registry's journal consumer (a new group each start)",
  },
];

export interface SecuredEndpoints {
  /** SASL_SSL listeners. */
  brokers: string;
  /** SSL (mTLS) listeners. */
  sslBrokers: string;
  /** The TLS front's Confluent-compatible API. */
  registryUrl: string;
  secretsDir: string;
  caFile: string;
  /** Each principal's client properties: SASL_SSL (SCRAM-SHA-512) and SSL (mTLS). */
  clientConfigs: Record<Principal, ClientFiles>;
}

export const frontPort = (config: StackConfig) => config.registryPort + 2;
export const frontUrl = (config: StackConfig) => `https://127.0.0.1:${frontPort(config)}/apis/ccompat/v7`;
const frontFiles = (config: StackConfig): ProcessFiles => ({
  pidFile: join(config.dataDir, "registry-front.pid"),
  logFile: join(config.dataDir, "registry-front.out"),
});

/** The secrets and every principal's client properties (written again each time: they name the ports). */
export function securedEndpoints(config: StackConfig): SecuredEndpoints {
  const secrets = ensureSecrets(config);
  const endpoints = {
    saslBrokers: brokersOf(config),
    sslBrokers: kafkaNodes(config)
      .map((n) => n.sslAddress)
      .join(","),
    registryUrl: frontUrl(config),
  };
  const clientConfigs = Object.fromEntries(
    principals.map((p) => [p, writeClientProperties(secrets, p, endpoints)]),
  ) as Record<Principal, ClientFiles>;
  return {
    brokers: endpoints.saslBrokers,
    sslBrokers: endpoints.sslBrokers,
    registryUrl: endpoints.registryUrl,
    secretsDir: secrets.dir,
    caFile: secrets.caPem,
    clientConfigs,
  };
}

/** A principal's client configuration over SASL_SSL or mTLS. */
export function principalClient(
  endpoints: SecuredEndpoints,
  principal: Principal,
  kind: keyof ClientFiles = "sasl",
): ClientConfig {
  return loadClientConfig({ KAFKA_CLIENT_CONFIG: endpoints.clientConfigs[principal][kind] });
}

/** Grants every ledger service its ACLs (and the registry its own), as `admin`. */
export async function applyLedgerAcls(
  brokers: string,
  admin: ClientConfig,
  names: AclNames = defaultAclNames,
): Promise<number> {
  const client = createKafka({
    brokers,
    clientId: "a2a-ledger-acls",
    client: admin,
    logLevel: logLevel.NOTHING,
    retries: 3,
  }).admin();
  await client.connect();
  try {
    let count = await applyAcls(client, "User:registry", registryAcls);
    for (const service of ledgerServices)
      count += await applyAcls(client, defaultPrincipal(service), serviceAcls(service, names));
    return count;
  } finally {
    await client.disconnect();
  }
}

async function startFront(config: StackConfig, secretsDir: string): Promise<void> {
  const files = frontFiles(config);
  if (runningPid(files) === undefined) {
    const settings = join(secretsDir, "registry-front.json");
    writeFileSync(
      settings,
      JSON.stringify({
        port: frontPort(config),
        upstreamPort: config.registryPort,
        certFile: join(secretsDir, "server.pem"),
        keyFile: join(secretsDir, "server.key"),
        passwordsFile: join(secretsDir, "passwords.json"),
      }),
      { mode: 0o600 },
    );
    // From the sources through tsx, from the build as plain JavaScript: the same form as this module.
    startDetached(
      process.execPath,
      [...siblingNodeArgs(import.meta.url, "./registry-front"), settings],
      files,
      process.env,
      repoRoot,
    );
  }
}

export async function startSecuredStack(config: StackConfig): Promise<SecuredEndpoints> {
  const endpoints = securedEndpoints(config);
  const admin = principalClient(endpoints, "admin");
  await startKafka(config, 180_000, admin);
  await applyLedgerAcls(endpoints.brokers, admin);
  await startSecuredRegistry(config);
  await startFront(config, endpoints.secretsDir);
  const files = frontFiles(config);
  await waitUntil(
    `the registry's TLS front at ${endpoints.registryUrl}`,
    () => registryAnswers(endpoints.registryUrl, admin.registry),
    30_000,
    () => tail(files.logFile),
    () => runningPid(files) !== undefined,
  );
  return endpoints;
}

/** The registry behind the TLS front, on Kafka over mTLS as `User:registry` (unless it runs already). */
export async function startSecuredRegistry(config: StackConfig): Promise<void> {
  const secrets = ensureSecrets(config);
  await startRegistry(config, {
    name: "registry",
    port: config.registryPort,
    brokers: securedEndpoints(config).sslBrokers,
    journalTopic: registryJournalTopic,
    kafkaTls: { truststore: secrets.caPem, keystore: secrets.keystore("registry"), groupPrefix: registryGroupPrefix },
  });
}

export async function stopRegistryFront(config: StackConfig): Promise<boolean> {
  return stopProcess(frontFiles(config), 10_000);
}

export { registryUrlOf };
