import { describe, expect, it } from "vitest";
import { accessFailureOf, isTlsRefusal, readinessReason } from "./access-failure.ts";

const client = {
  principal: "User:ingest",
  sasl: { mechanism: "scram-sha-512" as const, username: "ingest", password: "never" },
  source: "ingest.properties",
};

describe("Kafka's refusals, named", () => {
  it("names a SASL failure with the principal, the mechanism and where the credentials come from", () => {
    const failure = accessFailureOf(
      {
        name: "KafkaJSSASLAuthenticationError",
        message: "SASL SCRAM SHA512 authentication failed: invalid credentials",
        broker: "127.0.0.1:9093",
      },
      { client },
    );
    expect(failure).toMatchObject({
      code: "KAFKA_AUTHENTICATION_FAILED",
      cause: "authentication",
      resource: "broker 127.0.0.1:9093",
    });
    expect(failure?.message).toMatch(/User:ingest \(SCRAM-SHA-512\).*ingest\.properties/);
    expect(failure?.message).not.toContain("never");
  });

  it("tells an untrusted broker certificate from a client certificate the broker refused, and TLS against plaintext", () => {
    expect(
      accessFailureOf({
        name: "KafkaJSConnectionError",
        code: "SELF_SIGNED_CERT_IN_CHAIN",
        message: "Connection error: self-signed certificate in certificate chain",
        broker: "b:1",
      }),
    ).toMatchObject({
      code: "KAFKA_CERTIFICATE_REJECTED",
      message: expect.stringMatching(/certificate of broker b:1 is not trusted.*ssl\.ca\.location/),
    });
    expect(
      accessFailureOf({
        name: "KafkaJSConnectionError",
        code: "ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED",
        broker: "b:1",
      }),
    ).toMatchObject({
      code: "KAFKA_CERTIFICATE_REJECTED",
      message: expect.stringMatching(/refused the TLS handshake/),
    });
    expect(
      accessFailureOf({ name: "KafkaJSConnectionError", code: "ERR_SSL_WRONG_VERSION_NUMBER", broker: "b:1" }),
    ).toMatchObject({ code: "KAFKA_TLS_MISMATCH" });
  });

  it("names the resource of an authorization failure from what the client was doing, also inside kafkajs's wrappers", () => {
    const denied = {
      name: "KafkaJSProtocolError",
      type: "GROUP_AUTHORIZATION_FAILED",
      message: "Not authorized to access group",
    };
    const wrapped = {
      name: "KafkaJSNumberOfRetriesExceeded",
      message: "retries",
      cause: { name: "KafkaJSAggregateError", errors: [{ name: "x" }, denied] },
    };
    expect(accessFailureOf(wrapped, { groupId: "a2a-ledger-projector", client })).toMatchObject({
      code: "KAFKA_AUTHORIZATION_FAILED",
      resource: "group a2a-ledger-projector",
      message: expect.stringContaining("User:ingest"),
    });
    expect(accessFailureOf({ type: "TOPIC_AUTHORIZATION_FAILED" }, { topics: ["t1"] })?.resource).toBe("topic t1");
    expect(
      accessFailureOf({ type: "TRANSACTIONAL_ID_AUTHORIZATION_FAILED" }, { transactionalId: "tx-1" })?.resource,
    ).toBe("transactional id tx-1");
    expect(accessFailureOf({ type: "CLUSTER_AUTHORIZATION_FAILED" })?.resource).toBe("the cluster");
  });

  it("leaves outages and other errors alone", () => {
    for (const e of [
      new Error("boom"),
      { name: "KafkaJSConnectionError", code: "ECONNREFUSED" },
      { type: "NOT_LEADER_FOR_PARTITION" },
      null,
      "text",
      42,
    ])
      expect(accessFailureOf(e)).toBeUndefined();
    expect(isTlsRefusal("ECONNRESET")).toBe(false);
    expect(isTlsRefusal("UNABLE_TO_VERIFY_LEAF_SIGNATURE")).toBe(true);
    const loop: { cause?: unknown } = {};
    loop.cause = loop;
    expect(accessFailureOf(loop)).toBeUndefined();
  });

  it("tells /readyz the code, the resource and the message of a refusal, and nothing more", () => {
    const refused = accessFailureOf({ type: "TOPIC_AUTHORIZATION_FAILED" }, { topics: ["a2a.observations.v1"] });
    expect(refused).toBeDefined();
    expect(readinessReason(refused)).toEqual({
      reason: { code: "KAFKA_AUTHORIZATION_FAILED", resource: refused?.resource, message: refused?.message },
    });
    expect(Object.keys(readinessReason(refused).reason ?? {})).toEqual(["code", "resource", "message"]);
    expect(readinessReason(undefined)).toEqual({});
  });
});
