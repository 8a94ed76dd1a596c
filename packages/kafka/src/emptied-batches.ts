/**
 * Record batches the log cleaner emptied, read past as the Java client does. Compaction removes a
 * batch's records but keeps the batch itself while it is its producer's last one (Kafka keeps the
 * idempotent producer's sequence), so a compacted topic can hold a batch with no records. kafkajs 2.2.4
 * decodes such a batch to nothing: a fetch that returns only it hands over no record and no offset, the
 * consumer fetches the same offset again and again, and a reader waiting for the partition's end (a
 * changelog restore) never gets there. The Java client moves its position past the batch's last offset.
 *
 * This module replaces kafkajs's record batch decoder before kafkajs loads (it must be imported before
 * "kafkajs"): a batch with no records gives one placeholder control record at the batch's last offset.
 * kafkajs hands no control record to the application, but counts it as read, so the position moves past
 * the batch and the batch's end is reported (`END_BATCH_PROCESS`), as for a fetch of transaction markers.
 */
import { createRequire } from "node:module";

/** What kafkajs's record batch decoder gives (the fields this module reads). */
export interface DecodedRecordBatch {
  firstOffset: string;
  lastOffsetDelta: number;
  isControlBatch: boolean;
  records: unknown[];
  [field: string]: unknown;
}

/** The placeholder for an emptied batch: a control record (never handed over) at the batch's last offset. */
export function withEmptiedBatchPlaceholder<B extends DecodedRecordBatch>(batch: B): B {
  if (batch.records.length > 0) return batch;
  const { records: _records, ...context } = batch;
  const placeholder = {
    magicByte: batch.magicByte,
    attributes: 0,
    timestamp: String(batch.maxTimestamp ?? batch.firstTimestamp ?? "0"),
    offset: (BigInt(batch.firstOffset) + BigInt(batch.lastOffsetDelta)).toString(),
    key: null,
    value: null,
    headers: {},
    isControlRecord: true,
    batchContext: context,
  };
  return { ...batch, records: [placeholder] };
}

type Decoder = (decoder: unknown) => Promise<DecodedRecordBatch>;

/** Installs the decoder in place of kafkajs's, before kafkajs's fetch response modules load. */
export function installEmptiedBatchDecoder(): void {
  const require = createRequire(import.meta.url);
  const fetchDecoder = require.resolve("kafkajs/src/protocol/requests/fetch/v4/decodeMessages.js");
  const path = require.resolve("kafkajs/src/protocol/recordBatch/v0/decoder.js");
  const original = require(path) as Decoder & { emptiedBatches?: true };
  if (original.emptiedBatches === true) return;
  if (require.cache[fetchDecoder] !== undefined)
    throw new Error(
      "kafkajs's fetch decoder was loaded before the emptied-batch fix: import @a2a-ledger/kafka before kafkajs",
    );
  const decode: Decoder & { emptiedBatches?: true } = async (decoder) =>
    withEmptiedBatchPlaceholder(await original(decoder));
  decode.emptiedBatches = true;
  const cached = require.cache[path];
  if (cached === undefined) throw new Error("kafkajs's record batch decoder is not in the module cache");
  cached.exports = decode;
}

installEmptiedBatchDecoder();
