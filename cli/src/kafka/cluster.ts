/**
 * The cluster the CLI reads: KAFKA_BROKERS and SCHEMA_REGISTRY_URL (endpointsFromEnv), the topic set
 * of A2A_LEDGER_TOPIC_SUFFIX as the services use it, clients from @a2a-ledger/kafka. kafkajs's own log
 * lines stay off unless A2A_LEDGER_KAFKA_LOG_LEVEL asks for them: the CLI reports failures itself.
 */
import {
  createKafka,
  endpointsFromEnv,
  type Kafka,
  kafkaLogLevel,
  logLevel,
  processClientConfig,
  suffixedTopicNames,
  topicNames,
  type TopicNames,
} from "@a2a-ledger/kafka";
import { Serde } from "@a2a-ledger/schemas/serde";
import { UsageError } from "../io.ts";

export interface Cluster {
  kafka: Kafka;
  serde: Serde;
  brokers: string;
  topics: TopicNames;
}

export function topicsFromEnv(env: NodeJS.ProcessEnv = process.env): TopicNames {
  const suffix = env["A2A_LEDGER_TOPIC_SUFFIX"]?.trim();
  if (suffix === undefined || suffix === "") return topicNames;
  if (!/^[A-Za-z0-9._-]{1,100}$/.test(suffix))
    throw new UsageError(`A2A_LEDGER_TOPIC_SUFFIX=${JSON.stringify(suffix)}: letters, digits, '.', '_' and '-' only`);
  return suffixedTopicNames(suffix);
}

export function clusterFromEnv(clientId: string, env: NodeJS.ProcessEnv = process.env): Cluster {
  const { brokers, registryUrl, clientProblems } = endpointsFromEnv(env);
  if (clientProblems !== undefined)
    throw new UsageError(
      `the Kafka client configuration is invalid:\n${clientProblems.map((p) => `  - ${p}`).join("\n")}`,
    );
  const level = env["A2A_LEDGER_KAFKA_LOG_LEVEL"]?.trim() ? kafkaLogLevel(env) : logLevel.NOTHING;
  return {
    kafka: createKafka({ brokers, clientId, logLevel: level, retries: 2, connectionTimeoutMs: 3_000 }),
    serde: new Serde(registryUrl, undefined, processClientConfig().registry),
    brokers,
    topics: topicsFromEnv(env),
  };
}
