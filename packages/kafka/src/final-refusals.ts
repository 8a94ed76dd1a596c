/**
 * Refusals by the broker reach the caller once, with their cause, instead of a retry loop or a vague
 * error (imported by client.ts before kafkajs is used):
 *
 * - A TLS failure (an untrusted certificate, a certificate the broker rejects, TLS against a
 *   plaintext listener) is permanent until someone fixes a certificate or a trust store, yet kafkajs
 *   raises every socket error as a retriable KafkaJSConnectionError: the consumer would restart and
 *   the producer reconnect without end. Such an error is made non-retriable.
 * - A consumer group the principal may not use: the broker answers FindCoordinator with
 *   GROUP_AUTHORIZATION_FAILED, which kafkajs drops (it tries each broker and swallows their errors),
 *   then says "Failed to find group coordinator". The broker's own answer is thrown instead.
 */
import { createRequire } from "node:module";
import { isTlsRefusal } from "./access-failure.ts";

const require = createRequire(import.meta.url);

function tlsRefusalsAreFinal(): void {
  const errors = require("kafkajs/src/errors.js") as { KafkaJSConnectionError: { prototype: object } };
  if (Object.getOwnPropertyDescriptor(errors.KafkaJSConnectionError.prototype, "retriable") !== undefined) return;
  const stored = Symbol("retriable");
  Object.defineProperty(errors.KafkaJSConnectionError.prototype, "retriable", {
    get(this: { code?: unknown; [stored]?: boolean }) {
      return this[stored] !== false && !isTlsRefusal(this.code);
    },
    set(this: { [stored]?: boolean }, value: boolean) {
      this[stored] = value;
    },
  });
}

interface CoordinatorLookup {
  groupId: string;
  coordinatorType?: number;
}

interface ClusterLike {
  brokerPool: {
    withBroker<T>(
      callback: (args: { broker: { findGroupCoordinator(args: CoordinatorLookup): Promise<unknown> } }) => Promise<T>,
    ): Promise<T | null>;
  };
  findGroupCoordinatorMetadata(args: CoordinatorLookup): Promise<unknown>;
}

const patched = Symbol.for("a2a-ledger.groupAuthorization");

function groupRefusalsKeepTheirCause(): void {
  const Cluster = require("kafkajs/src/cluster/index.js") as { prototype: ClusterLike & { [patched]?: true } };
  if (Cluster.prototype[patched]) return;
  const original = Cluster.prototype.findGroupCoordinatorMetadata;
  Cluster.prototype.findGroupCoordinatorMetadata = async function (this: ClusterLike, args: CoordinatorLookup) {
    try {
      return await original.call(this, args);
    } catch (e) {
      if ((e as { name?: string }).name !== "KafkaJSGroupCoordinatorNotFound") throw e;
      // Ask once more and keep the broker's answer: an authorization failure is the real cause.
      const answer = await this.brokerPool
        .withBroker(async ({ broker }) =>
          broker.findGroupCoordinator(args).then(
            () => undefined,
            (inner: unknown) => inner,
          ),
        )
        .catch(() => undefined);
      if ((answer as { type?: string } | undefined)?.type === "GROUP_AUTHORIZATION_FAILED") throw answer;
      throw e;
    }
  };
  Cluster.prototype[patched] = true;
}

tlsRefusalsAreFinal();
groupRefusalsKeepTheirCause();
