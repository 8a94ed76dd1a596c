/**
 * The trust policy as recorded on a2a.policy.v1: every instance reads the topic whole and keeps
 * following it, and reads it to its end again before each batch (with the capability table), so a
 * version `policy set` committed before the batch began is in force for the events it governs.
 *
 * Bootstrap: when the topic holds no version at start, A2A_LEDGER_TRUSTED_VENDORS (possibly empty) is
 * written as version 1, valid from the epoch — what this reconciler decided by before policies were
 * recorded, so a replay of older history still reproduces it. Once a version is recorded the variable
 * decides nothing: a value that differs from the version in force is logged as ignored.
 */
import { policyAt, type PolicyHistory, withPolicyVersion } from "@a2a-ledger/core";
import { type Admin, type Kafka, TopicReader } from "@a2a-ledger/kafka";
import type { Logger } from "@a2a-ledger/logging";
import type { TrustPolicy } from "@a2a-ledger/schemas";
import type { Serde } from "@a2a-ledger/schemas/serde";

/** The record of a seeded version 1 (the reconciler's variable, in force from the epoch). */
export function seededPolicy(trustedVendors: readonly string[], setBy: string, now: number): TrustPolicy {
  return {
    version: 1,
    validFrom: 0,
    trustedVendors: [...trustedVendors],
    setAt: now,
    setBy,
    reason: "seeded from A2A_LEDGER_TRUSTED_VENDORS: no trust policy was recorded",
    reprobeAfterMs: null,
    canaryOutlivesMs: null,
    fallbacks: [],
  };
}

const sameVendors = (a: readonly string[], b: readonly string[]) =>
  [...a].sort().join("\u0000") === [...b].sort().join("\u0000");

export class PolicyFollower {
  private versions: TrustPolicy[] = [];
  private readonly reader: TopicReader;

  constructor(
    private readonly kafka: Kafka,
    admin: Admin,
    private readonly topic: string,
    private readonly serde: Serde,
    groupPrefix: string,
    private readonly log: Logger,
  ) {
    this.reader = new TopicReader(
      kafka,
      admin,
      topic,
      async (_partition, message) => {
        if (message.value === null) return;
        const { record } = await this.serde.decode(message.value);
        if (record.type !== "TrustPolicy") return;
        const { type: _type, ...version } = record;
        this.versions = withPolicyVersion(this.versions, version);
      },
      `${groupPrefix}-policy`,
    );
  }

  /** What the fold judges by: every recorded version. */
  get history(): PolicyHistory {
    return { versions: this.versions };
  }

  /** The highest version read so far (0: none): what a batch records it was judged by. */
  get highestVersion(): number {
    let highest = 0;
    for (const v of this.versions) if (v.version > highest) highest = v.version;
    return highest;
  }

  /** Reads the topic to its end; seeds version 1 from `envVendors` when it holds none. */
  async start(envVendors: readonly string[], instanceId: string): Promise<void> {
    await this.reader.start();
    await this.reader.caughtUp(120_000);
    if (this.versions.length === 0) {
      const seed = seededPolicy(envVendors, `reconciler ${instanceId}`, Date.now());
      const producer = this.kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
      await producer.connect();
      try {
        await producer.send({
          topic: this.topic,
          acks: -1,
          messages: [{ key: String(seed.version), value: await this.serde.encode({ type: "TrustPolicy", ...seed }) }],
        });
      } finally {
        await producer.disconnect();
      }
      await this.reader.caughtUp(120_000);
      this.log.warn(
        { topic: this.topic, trustedVendors: seed.trustedVendors },
        "no trust policy recorded: seeded version 1 from A2A_LEDGER_TRUSTED_VENDORS, valid from the epoch; change it with `a2a-ledger policy set`",
      );
      return;
    }
    const now = policyAt(this.versions, Date.now());
    if (envVendors.length > 0 && !sameVendors(envVendors, now.trustedVendors)) {
      this.log.warn(
        { topic: this.topic, ignored: envVendors, version: now.version, trustedVendors: now.trustedVendors },
        "A2A_LEDGER_TRUSTED_VENDORS is ignored: the trust policy recorded on Kafka decides",
      );
    }
  }

  /** Waits until every version committed so far is read. */
  async catchUp(timeoutMs?: number): Promise<void> {
    await this.reader.caughtUp(timeoutMs);
  }

  stop(): Promise<void> {
    return this.reader.stop();
  }
}
