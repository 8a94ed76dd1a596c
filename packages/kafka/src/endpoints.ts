/**
 * Where the stack is: KAFKA_BROKERS and SCHEMA_REGISTRY_URL, else the addresses `npm run infra:up`
 * uses by default. Every service, script and test finds the cluster through this one function.
 */
export interface Endpoints {
  brokers: string;
  /** Confluent-compatible API base, e.g. http://127.0.0.1:18081/apis/ccompat/v7 */
  registryUrl: string;
}

export const defaultEndpoints: Endpoints = {
  brokers: "127.0.0.1:19092",
  registryUrl: "http://127.0.0.1:18081/apis/ccompat/v7",
};

export function endpointsFromEnv(env: NodeJS.ProcessEnv = process.env): Endpoints {
  return {
    brokers: env.KAFKA_BROKERS?.trim() || defaultEndpoints.brokers,
    registryUrl: (env.SCHEMA_REGISTRY_URL?.trim() || defaultEndpoints.registryUrl).replace(/\/+$/, ""),
  };
}

/** What is wrong with endpoints, one line each (empty when they are usable). */
export function endpointProblems(endpoints: Endpoints): string[] {
  const problems: string[] = [];
  for (const broker of endpoints.brokers.split(",")) if (!/^[^\s:]+:\d{1,5}$/.test(broker.trim())) problems.push(`KAFKA_BROKERS entry ${JSON.stringify(broker)} is not host:port`);
  if (!/^https?:\/\/\S+$/.test(endpoints.registryUrl)) problems.push(`SCHEMA_REGISTRY_URL=${JSON.stringify(endpoints.registryUrl)} is not an http(s) URL`);
  return problems;
}
