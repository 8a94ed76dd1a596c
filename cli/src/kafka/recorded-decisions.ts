/**
 * The decisions the reconciler committed, read from its decisions topic (read_committed) as a replay
 * baseline: those in the replay's scope, of one rulesVersion. Which versions the scope holds is
 * reported too, so that a baseline without a version can take the only one there is.
 */
import type { Kafka } from "@a2a-ledger/kafka";
import type { Decision } from "@a2a-ledger/schemas";
import type { Serde } from "@a2a-ledger/schemas/serde";
import { decisionInScope, type ReplayScope } from "../replay/replay-scope.ts";
import type { SkippedRecord } from "./observation-topic.ts";
import { decodeRecord } from "./decode-record.ts";
import { streamTopic } from "./topic-stream.ts";

export interface RecordedDecisions {
  /** In scope, by rulesVersion, each in topic order. */
  byVersion: Map<string, Decision[]>;
  skipped: SkippedRecord[];
}

export async function readRecordedDecisions(
  kafka: Kafka,
  serde: Serde,
  topic: string,
  scope: ReplayScope,
): Promise<RecordedDecisions> {
  const byVersion = new Map<string, Decision[]>();
  const skipped: SkippedRecord[] = [];
  for await (const slice of streamTopic(kafka, topic, { groupPrefix: "a2a-ledger-replay-decisions" })) {
    for (const record of slice) {
      const where = `${topic}[${record.partition}]@${record.offset}`;
      const decoded = await decodeRecord(serde, record);
      if (typeof decoded === "string") {
        skipped.push({ where, reason: decoded });
        continue;
      }
      if (decoded.group !== "decisions") {
        skipped.push({ where, reason: `a ${decoded.typeName} record, not a decision` });
        continue;
      }
      const d = decoded.record as Decision;
      if (!decisionInScope(scope, d)) continue;
      let list = byVersion.get(d.rulesVersion);
      if (list === undefined) byVersion.set(d.rulesVersion, (list = []));
      list.push(d);
    }
  }
  return { byVersion, skipped };
}
