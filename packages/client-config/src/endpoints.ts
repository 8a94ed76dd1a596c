/**
 * Where the stack is: KAFKA_BROKERS and SCHEMA_REGISTRY_URL, else `bootstrap.servers` and
 * `schema.registry.url` of the client properties file (KAFKA_CLIENT_CONFIG), else the addresses
 * `npm run infra:up` uses by default. Every service, script and test finds the cluster through this
 * one function; its problems include those of the client configuration (client-config.ts).
 */
import { ClientConfigError, loadClientConfig } from "./client-config.ts";

export interface Endpoints {
  brokers: string;
  /** Confluent-compatible API base, e.g. http://127.0.0.1:18081/apis/ccompat/v7 */
  registryUrl: string;
  /** What is wrong with the client configuration (KAFKA_CLIENT_CONFIG and its overrides); no secret is quoted. */
  clientProblems?: string[];
}

export const defaultEndpoints: Endpoints = {
  brokers: "127.0.0.1:19092",
  registryUrl: "http://127.0.0.1:18081/apis/ccompat/v7",
};

export function endpointsFromEnv(env: NodeJS.ProcessEnv = process.env): Endpoints {
  let file: { bootstrapServers?: string; registryUrl?: string } = {};
  let clientProblems: string[] = [];
  try {
    file = loadClientConfig(env);
  } catch (e) {
    if (!(e instanceof ClientConfigError)) throw e;
    clientProblems = e.problems;
  }
  return {
    brokers: env.KAFKA_BROKERS?.trim() || file.bootstrapServers || defaultEndpoints.brokers,
    registryUrl: (env.SCHEMA_REGISTRY_URL?.trim() || file.registryUrl || defaultEndpoints.registryUrl).replace(
      /\/+$/,
      "",
    ),
    ...(clientProblems.length > 0 ? { clientProblems } : {}),
  };
}

/** What is wrong with endpoints, one line each (empty when they are usable). */
export function endpointProblems(endpoints: Endpoints): string[] {
  const problems: string[] = [];
  for (const broker of endpoints.brokers.split(","))
    if (!/^[^\s:]+:\d{1,5}$/.test(broker.trim()))
      problems.push(`KAFKA_BROKERS entry ${JSON.stringify(broker)} is not host:port`);
  if (/^https?:\/\/[^/\s]*@/.test(endpoints.registryUrl))
    problems.push(
      "SCHEMA_REGISTRY_URL must not carry credentials (value not shown): give them as basic.auth.user.info",
    );
  else if (!/^https?:\/\/\S+$/.test(endpoints.registryUrl))
    problems.push(`SCHEMA_REGISTRY_URL=${JSON.stringify(endpoints.registryUrl)} is not an http(s) URL`);
  problems.push(...(endpoints.clientProblems ?? []));
  return problems;
}
