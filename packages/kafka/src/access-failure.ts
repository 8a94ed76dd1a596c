/**
 * Why Kafka refused a client, in words an operator acts on: wrong credentials (SASL), a certificate
 * one side does not trust (TLS), or a missing ACL (authorization), each naming the resource. These
 * failures are permanent until someone changes the configuration, so they are not retried: a service
 * reports the reason on /readyz, the CLI exits 3 with it.
 */
import type { ClientConfig } from "@a2a-ledger/client-config";
import { type KafkaErrorCode, kafkaErrors } from "./errors.ts";

export type AccessCause = "authentication" | "certificate" | "authorization";

/** Each code's meaning, from the catalogue (errors.ts). */
export const accessFailureCodes: Readonly<Record<KafkaErrorCode, string>> = Object.fromEntries(
  Object.entries(kafkaErrors).map(([code, entry]) => [code, entry.message]),
) as Record<KafkaErrorCode, string>;

export type AccessFailureCode = KafkaErrorCode;

export interface AccessFailure {
  code: AccessFailureCode;
  cause: AccessCause;
  /** What was refused: `topic a2a.observations.v1`, `group a2a-ledger-reconciler`, `broker 127.0.0.1:9093`, … */
  resource: string;
  /** One line naming the cause, the principal and the resource; never a secret. */
  message: string;
}

/** What a client was doing, to name the resource an authorization error is about (Kafka's answer does not). */
export interface AccessContext {
  topics?: readonly string[];
  groupId?: string;
  transactionalId?: string;
  /** The client configuration in use, for the principal's name. */
  client?: Pick<ClientConfig, "principal" | "sasl" | "source">;
}

/** Node's codes for a server certificate this client does not trust. */
const untrusted = new Set([
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "CERT_SIGNATURE_FAILURE",
  "CERT_NOT_YET_VALID",
  "CERT_HAS_EXPIRED",
  "CERT_UNTRUSTED",
  "CERT_REJECTED",
  "CERT_REVOKED",
  "INVALID_CA",
  "INVALID_PURPOSE",
  "CERT_CHAIN_TOO_LONG",
  "PATH_LENGTH_EXCEEDED",
  "HOSTNAME_MISMATCH",
  "ERR_TLS_CERT_ALTNAME_INVALID",
]);

/** A TLS failure that no retry can cure: untrusted certificates, alerts the broker sent, a protocol mismatch. */
export function isTlsRefusal(code: unknown): boolean {
  return (
    typeof code === "string" &&
    (untrusted.has(code) ||
      /^ERR_SSL_.*ALERT/.test(code) ||
      code === "ERR_SSL_WRONG_VERSION_NUMBER" ||
      code === "ERR_SSL_PACKET_LENGTH_TOO_LONG")
  );
}

interface KafkaJsLike {
  name?: string;
  message?: string;
  type?: string;
  code?: unknown;
  broker?: string;
  cause?: unknown;
  originalError?: unknown;
  errors?: unknown[];
}

/** Every error in the chain kafkajs builds (retries exceeded → cause, aggregate → errors). */
function chain(error: unknown, seen = new Set<unknown>()): KafkaJsLike[] {
  if (error === null || typeof error !== "object" || seen.has(error)) return [];
  seen.add(error);
  const e = error as KafkaJsLike;
  return [
    e,
    ...chain(e.cause, seen),
    ...chain(e.originalError, seen),
    ...(Array.isArray(e.errors) ? e.errors.flatMap((x) => chain(x, seen)) : []),
  ];
}

const who = (context: AccessContext): string => context.client?.principal ?? "this client";

function resourceOf(type: string, context: AccessContext): string {
  switch (type) {
    case "TOPIC_AUTHORIZATION_FAILED":
      return context.topics !== undefined && context.topics.length > 0
        ? `topic ${context.topics.join(", ")}`
        : "a topic";
    case "GROUP_AUTHORIZATION_FAILED":
      return context.groupId !== undefined ? `group ${context.groupId}` : "a consumer group";
    case "TRANSACTIONAL_ID_AUTHORIZATION_FAILED":
      return context.transactionalId !== undefined
        ? `transactional id ${context.transactionalId}`
        : "a transactional id";
    default:
      return "the cluster";
  }
}

const authorizationTypes = new Set([
  "TOPIC_AUTHORIZATION_FAILED",
  "GROUP_AUTHORIZATION_FAILED",
  "TRANSACTIONAL_ID_AUTHORIZATION_FAILED",
  "CLUSTER_AUTHORIZATION_FAILED",
  "DELEGATION_TOKEN_AUTHORIZATION_FAILED",
]);

/** The access failure behind `error`, or undefined when it is something else (an outage, a bug). */
export function accessFailureOf(error: unknown, context: AccessContext = {}): AccessFailure | undefined {
  for (const e of chain(error)) {
    if (
      e.name === "KafkaJSSASLAuthenticationError" ||
      e.type === "SASL_AUTHENTICATION_FAILED" ||
      e.type === "UNSUPPORTED_SASL_MECHANISM" ||
      e.type === "ILLEGAL_SASL_STATE"
    ) {
      const mechanism = context.client?.sasl?.mechanism.toUpperCase();
      return {
        code: "KAFKA_AUTHENTICATION_FAILED",
        cause: "authentication",
        resource: e.broker !== undefined ? `broker ${e.broker}` : "the cluster",
        message: `Kafka refused the SASL authentication of ${who(context)}${mechanism === undefined ? "" : ` (${mechanism})`}: ${e.message ?? "authentication failed"}; check sasl.username, sasl.password and sasl.mechanism in ${context.client?.source ?? "the client configuration"}`,
      };
    }
    if (isTlsRefusal(e.code)) {
      const code = e.code as string;
      const broker = e.broker !== undefined ? `broker ${e.broker}` : "the broker";
      if (code === "ERR_SSL_WRONG_VERSION_NUMBER" || code === "ERR_SSL_PACKET_LENGTH_TOO_LONG") {
        return {
          code: "KAFKA_TLS_MISMATCH",
          cause: "certificate",
          resource: broker,
          message: `${broker} does not speak TLS on this port (${code}): security.protocol says SSL or SASL_SSL, the listener is PLAINTEXT or SASL_PLAINTEXT`,
        };
      }
      const theirs = /^ERR_SSL_/.test(code);
      return {
        code: "KAFKA_CERTIFICATE_REJECTED",
        cause: "certificate",
        resource: broker,
        message: theirs
          ? `${broker} refused the TLS handshake of ${who(context)} (${code}): it requires a client certificate signed by a CA it trusts (ssl.certificate.location, ssl.key.location)`
          : `the certificate of ${broker} is not trusted (${code}: ${(e.message ?? "").replace(/^Connection error: /, "")}): set ssl.ca.location to the CA that signed it`,
      };
    }
    if (e.type !== undefined && authorizationTypes.has(e.type)) {
      const resource = resourceOf(e.type, context);
      return {
        code: "KAFKA_AUTHORIZATION_FAILED",
        cause: "authorization",
        resource,
        message: `Kafka denied ${who(context)} access to ${resource} (${e.type}): an ACL is missing (see a2a-ledger acls)`,
      };
    }
  }
  return undefined;
}

/** An error that carries an access failure, for code paths that throw. */
export class KafkaAccessError extends Error {
  override name = "KafkaAccessError";
  constructor(readonly failure: AccessFailure) {
    super(failure.message);
  }
}

/** What a /readyz answer says of a refusal — its code, the resource and the message, never a secret — or nothing without one. */
export function readinessReason(refused: AccessFailure | undefined): {
  reason?: Pick<AccessFailure, "code" | "resource" | "message">;
} {
  return refused === undefined
    ? {}
    : { reason: { code: refused.code, resource: refused.resource, message: refused.message } };
}
