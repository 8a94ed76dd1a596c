/**
 * read_committed, as the Java client does it. kafkajs 2.2.4 filters aborted transactions from a fetch
 * assuming the broker lists them by first offset, and activates at most one per record. The broker lists
 * them in the order their abort markers were written, so when transactions of several producers interleave
 * — six transactional producers writing the same output topics, one of them killed mid-transaction — an
 * aborted record can slip through to a read_committed reader: an aborted changelog value restored as a
 * correlation's state, whose window then takes the aborted batch's observations for processed. This module
 * replaces kafkajs's filter before kafkajs loads (it must be imported before "kafkajs"): aborted
 * transactions are taken in first-offset order, all that started at or before a record are active, and a
 * producer's abort marker ends its transaction.
 */
import { createRequire } from "node:module";

export interface FetchedMessage {
  offset: string;
  key: Buffer | null;
  isControlRecord?: boolean;
  batchContext: { producerId: string; inTransaction: boolean };
}

export interface AbortedTransaction {
  producerId: string;
  firstOffset: string;
}

const ABORT_MARKER_KEY = Buffer.from([0, 0, 0, 0]);
const isAbortMarker = (m: FetchedMessage): boolean =>
  m.key !== null && m.key !== undefined && Buffer.from(m.key).equals(ABORT_MARKER_KEY);

/** The messages of a fetch that did not take part in an aborted transaction (control records included, as kafkajs expects). */
export function filterAbortedMessages<M extends FetchedMessage>({
  messages,
  abortedTransactions,
}: {
  messages: M[];
  abortedTransactions?: AbortedTransaction[];
}): M[] {
  if (abortedTransactions === undefined || abortedTransactions.length === 0) return messages;
  const pending = [...abortedTransactions].sort((a, b) =>
    BigInt(a.firstOffset) < BigInt(b.firstOffset) ? -1 : BigInt(a.firstOffset) > BigInt(b.firstOffset) ? 1 : 0,
  );
  const aborted = new Set<string>();
  return messages.filter((message) => {
    const offset = BigInt(message.offset);
    while (pending.length > 0 && BigInt((pending[0] as AbortedTransaction).firstOffset) <= offset)
      aborted.add((pending.shift() as AbortedTransaction).producerId);
    const { producerId, inTransaction } = message.batchContext;
    if (message.isControlRecord === true) {
      if (isAbortMarker(message)) aborted.delete(producerId);
      return true;
    }
    return !(inTransaction && aborted.has(producerId));
  });
}

/** Installs the filter in place of kafkajs's, before kafkajs's consumer batch module loads. */
export function installReadCommittedFilter(): void {
  const require = createRequire(import.meta.url);
  const path = require.resolve("kafkajs/src/consumer/filterAbortedMessages.js");
  const cached = require.cache[path];
  if (cached !== undefined) {
    if (cached.exports !== filterAbortedMessages)
      throw new Error(
        "kafkajs's aborted-transaction filter was loaded before the fix: import @a2a-ledger/kafka before kafkajs",
      );
    return;
  }
  const module = new (require("node:module") as { Module: new (id: string) => NodeJS.Module }).Module(path);
  module.filename = path;
  module.loaded = true;
  module.exports = filterAbortedMessages;
  require.cache[path] = module;
}

installReadCommittedFilter();
