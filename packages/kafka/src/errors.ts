/**
 * The Kafka library's catalogue of stable codes (@a2a-ledger/env's shape): why Kafka refused a client
 * (access-failure.ts). None is an HTTP answer of its own: a service reports one on /readyz, ingest
 * inside `INGEST_KAFKA_REFUSED`, the CLI and the reconciler with exit code 3.
 */
import { defineErrorCatalogue } from "@a2a-ledger/env";

export const kafkaErrors = defineErrorCatalogue("KAFKA", {
  KAFKA_AUTHENTICATION_FAILED: {
    status: null,
    message: "The broker refused the SASL credentials (wrong user name, password or mechanism).",
  },
  KAFKA_CERTIFICATE_REJECTED: {
    status: null,
    message:
      "A TLS certificate was not trusted: the broker's by this client (ssl.ca.location), or this client's by the broker.",
  },
  KAFKA_TLS_MISMATCH: {
    status: null,
    message:
      "The listener does not speak what security.protocol says (TLS against a plaintext listener or the reverse).",
  },
  KAFKA_AUTHORIZATION_FAILED: {
    status: null,
    message: "The principal lacks an ACL for a topic, consumer group, transactional id or the cluster.",
  },
});

export type KafkaErrorCode = keyof typeof kafkaErrors;
