/**
 * Every Kafka client of the ledger, its topics, ACLs, end offsets, reading a topic to its end, dead-letter
 * headers and retries, with the one client configuration (@a2a-ledger/client-config) re-exported, each
 * name listed with the module it comes from. Test helpers are in the `testing` entry.
 */
export {
  type Admin,
  AssignerProtocol,
  type Batch,
  CompressionTypes,
  connectionSecurity,
  type Consumer,
  createKafka,
  type IHeaders,
  type Kafka,
  kafkaLogLevel,
  type KafkaMessage,
  type KafkaOptions,
  logLevel,
  Partitioners,
  type PartitionMetadata,
  type Producer,
  type RecordMetadata,
  type Transaction,
} from "./client.ts";
export {
  type ClientConfig,
  ClientConfigError,
  type ClientConfigKey,
  clientConfigKeys,
  clientConfigProblems,
  defaultEndpoints,
  endpointProblems,
  type Endpoints,
  endpointsFromEnv,
  loadClientConfig,
  parseProperties,
  processClientConfig,
  type RegistrySecurity,
  type SaslCredentials,
  type SaslMechanism,
  type SecurityProtocol,
  type TlsOptions,
} from "@a2a-ledger/client-config";
export {
  type AccessCause,
  type AccessContext,
  type AccessFailure,
  type AccessFailureCode,
  accessFailureCodes,
  accessFailureOf,
  isTlsRefusal,
  KafkaAccessError,
  readinessReason,
} from "./access-failure.ts";
export {
  changelogMaxMessageBytes,
  correlationKeyedTopics,
  correlationPartitions,
  effectiveConfigs,
  type EnsureResult,
  ensureTopics,
  type Replication,
  replicationFor,
  suffixedTopicNames,
  topicConfig,
  type TopicConflict,
  TopicConflictError,
  topicNames,
  type TopicNames,
  topics,
  type TopicSpec,
  topicSpecs,
  tuneTopic,
} from "./topics.ts";
export {
  agreedPartitions,
  defaultPartitions,
  installedPartitions,
  MissingTopicsError,
  partitionCounts,
  PartitionDisagreementError,
  partitionsBounds,
  partitionsFromEnv,
  PartitionsSettingError,
  partitionsSettingName,
  type TopicPartitionCount,
} from "./partition-count.ts";
export { partitionOf } from "./partition.ts";
export {
  aclEntries,
  type AclNames,
  aclNamesFor,
  type AclOperation,
  type AclResource,
  type AclRule,
  applyAcls,
  defaultAclNames,
  defaultPrincipal,
  kafkaAclsCommands,
  type LedgerService,
  ledgerServices,
  revokeAcls,
  serviceAcls,
} from "./acls.ts";
export {
  endOffsets,
  type PartitionOffsets,
} from "./end-offsets.ts";
export {
  type CaughtUpWatch,
  onlyPartitions,
  type PartitionProgress,
  type RecordHandler,
  TopicReader,
  type TopicReaderOptions,
} from "./topic-reader.ts";
export {
  byPartition,
  IncompleteSendError,
  type RecordSender,
  sendAcknowledged,
  sendByPartition,
} from "./partition-send.ts";
export { createTopicsAndWait } from "./create-topics.ts";
export {
  dlqHeader,
  rulesRejectedReason,
} from "./dead-letter.ts";
export {
  ConsumerRestart,
  type ConsumerRestartOptions,
  restartDelayMs,
} from "./consumer-restart.ts";
export {
  defaultKafkaRetryBudgetMs,
  isRetriableKafkaError,
  KafkaRetriesExhaustedError,
  type KafkaRetry,
  type KafkaRetryOptions,
  retryKafka,
} from "./kafka-retry.ts";
export { type KafkaErrorCode, kafkaErrors } from "./errors.ts";
