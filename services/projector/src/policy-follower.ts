/**
 * The trust policy recorded on a2a.policy.v1, followed for the worker pages: the topic read whole
 * (read_committed, a throwaway group) and kept up with, so "trust or verify, and why" is judged by the
 * version in force now (`policyAt`, as the reconciler judges each event) and names it. The projector
 * never writes the topic: with none recorded, version 0 (no vendor trusted) applies until a reconciler
 * seeds version 1 or `a2a-ledger policy set` records one.
 */
import { randomUUID } from "node:crypto";
import { type PolicyHistory, withPolicyVersion } from "@a2a-ledger/core";
import { type Consumer, createKafka, type Kafka, processClientConfig } from "@a2a-ledger/kafka";
import type { TrustPolicy } from "@a2a-ledger/schemas";
import { classifyDecodeFailure, Serde } from "@a2a-ledger/schemas/serde";
import type { Logger } from "./logger.ts";

export class PolicyFollower implements PolicyHistory {
  private list: TrustPolicy[] = [];
  private readonly kafka: Kafka;
  private readonly serde: Serde;
  private consumer: Consumer | undefined;

  constructor(
    config: { brokers: string; registryUrl: string; instanceId: string; groupId: string },
    private readonly topic: string,
    private readonly log: Logger,
  ) {
    this.kafka = createKafka({ brokers: config.brokers, clientId: `a2a-ledger-projector-policy-${config.instanceId}` });
    this.serde = new Serde(config.registryUrl, undefined, processClientConfig().registry);
    this.groupId = `${config.groupId}-policy-${randomUUID()}`;
  }

  private readonly groupId: string;

  get versions(): readonly TrustPolicy[] {
    return this.list;
  }

  async start(): Promise<void> {
    const consumer = this.kafka.consumer({
      groupId: this.groupId,
      readUncommitted: false,
      allowAutoTopicCreation: false,
      maxWaitTimeInMs: 500,
      retry: { restartOnFailure: async () => true },
    });
    this.consumer = consumer;
    await consumer.connect();
    await consumer.subscribe({ topic: this.topic, fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ message, partition }) => {
        if (message.value === null) return;
        let record;
        try {
          ({ record } = await this.serde.decode(message.value));
        } catch (error) {
          // A registry out of reach is retried (kafkajs restarts the consumer); bad bytes are skipped.
          if (classifyDecodeFailure(error) === undefined) throw error;
          this.log.warn(
            { err: error, topic: this.topic, partition, offset: message.offset },
            "a record of the policy topic cannot be decoded: skipped",
          );
          return;
        }
        if (record.type !== "TrustPolicy") {
          this.log.warn(
            { topic: this.topic, partition, offset: message.offset, type: record.type },
            "a record of the policy topic is not a trust policy: skipped",
          );
          return;
        }
        const { type: _type, ...version } = record;
        this.list = withPolicyVersion(this.list, version);
      },
    });
  }

  async stop(): Promise<void> {
    await this.consumer?.disconnect().catch(() => undefined);
  }
}
