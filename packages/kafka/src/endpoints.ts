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
