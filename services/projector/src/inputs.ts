/**
 * Kafka records of the five input topics → what the views are built from. A record that cannot be
 * projected (bad bytes, unknown schema, a type its topic does not carry, a key that is not its
 * correlation) becomes a poison input with a stable reason, kept in the DLQ view; a registry that
 * cannot be reached is not poison: the error propagates and the batch is retried.
 */
import { dlqHeader, type TopicNames } from "@a2a-ledger/kafka";
import type { CapabilitySnapshot, Decision, Observation } from "@a2a-ledger/schemas";
import { classifyDecodeFailure, type Serde } from "@a2a-ledger/schemas/serde";
import type { IHeaders } from "kafkajs";
import { type PoisonReason, poisonReasons } from "./errors.ts";

export type TopicRole = "observations" | "decisions" | "commands" | "capabilities" | "dlq";
export const topicRoles: readonly TopicRole[] = ["observations", "decisions", "commands", "capabilities", "dlq"];

/** Where a record was read. */
export interface Source {
  topic: string;
  partition: number;
  offset: number;
  /** The record's Kafka timestamp (epoch ms). */
  timestamp: number;
}

export interface DeadLetterView {
  recordedBy: "reconciler" | "projector";
  reason: string;
  detail: string;
  sourceTopic: string | null;
  sourcePartition: number | null;
  sourceOffset: number | null;
  key: string | null;
  valueBytes: number;
  /** The first bytes of the value, base64. */
  valuePreview: string;
}

export type ProjectorInput =
  | { kind: "observation"; source: Source; record: Observation }
  | { kind: "decision"; source: Source; record: Decision }
  | { kind: "command"; source: Source; record: Decision }
  | { kind: "snapshot"; source: Source; record: CapabilitySnapshot }
  | { kind: "dead-letter"; source: Source; deadLetter: DeadLetterView }
  /** Nothing to project: a tombstone on the compacted capabilities topic. */
  | { kind: "skip"; source: Source };

export interface RawRecord {
  key: Buffer | null;
  value: Buffer | null;
  headers?: IHeaders;
}

const previewBytes = 256;
const keyChars = 512;

function headerText(headers: IHeaders | undefined, name: string): string | null {
  const value = headers?.[name];
  if (value === undefined) return null;
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined ? null : Buffer.isBuffer(first) ? first.toString("utf8") : String(first);
}

const integerOrNull = (text: string | null): number | null =>
  text !== null && /^\d{1,15}$/.test(text) ? Number(text) : null;

function deadLetterOf(
  raw: RawRecord,
  recordedBy: DeadLetterView["recordedBy"],
  reason: string,
  detail: string,
  sourceOverride?: Source,
): DeadLetterView {
  return {
    recordedBy,
    reason,
    detail: detail.slice(0, 2_000),
    sourceTopic: sourceOverride?.topic ?? headerText(raw.headers, dlqHeader.topic),
    sourcePartition: sourceOverride?.partition ?? integerOrNull(headerText(raw.headers, dlqHeader.partition)),
    sourceOffset: sourceOverride?.offset ?? integerOrNull(headerText(raw.headers, dlqHeader.offset)),
    key: raw.key === null ? null : raw.key.toString("utf8").slice(0, keyChars),
    valueBytes: raw.value?.length ?? 0,
    valuePreview: raw.value === null ? "" : raw.value.subarray(0, previewBytes).toString("base64"),
  };
}

/** Whether any string inside a decoded record holds U+0000. */
function holdsNul(value: unknown): boolean {
  if (typeof value === "string") return value.includes("\u0000");
  if (Array.isArray(value)) return value.some(holdsNul);
  if (value !== null && typeof value === "object") return Object.values(value).some(holdsNul);
  return false;
}

class Poison extends Error {
  constructor(
    readonly reason: PoisonReason,
    detail: string,
  ) {
    super(detail);
  }
}

export class InputDecoder {
  private readonly roles = new Map<string, TopicRole>();

  constructor(
    private readonly serde: Serde,
    readonly topics: TopicNames,
  ) {
    for (const role of topicRoles) this.roles.set(topics[role], role);
  }

  roleOf(topic: string): TopicRole | undefined {
    return this.roles.get(topic);
  }

  /** Decodes one record; throws only what is worth retrying (the registry out of reach). */
  async decode(source: Source, raw: RawRecord): Promise<ProjectorInput> {
    const role = this.roleOf(source.topic);
    if (role === undefined) throw new Error(`not an input topic: ${source.topic}`);
    if (role === "dlq") {
      const reason = headerText(raw.headers, dlqHeader.reason) ?? "UNKNOWN";
      return {
        kind: "dead-letter",
        source,
        deadLetter: deadLetterOf(
          raw,
          "reconciler",
          reason.slice(0, 100),
          headerText(raw.headers, dlqHeader.detail) ?? "",
        ),
      };
    }
    if (raw.value === null && role === "capabilities") return { kind: "skip", source };
    try {
      return await this.decodeTyped(role, source, raw);
    } catch (error) {
      if (!(error instanceof Poison)) throw error;
      return {
        kind: "dead-letter",
        source,
        deadLetter: deadLetterOf(
          raw,
          "projector",
          error.reason,
          `${poisonReasons[error.reason].message}: ${error.message}`,
          source,
        ),
      };
    }
  }

  private async decodeTyped(role: Exclude<TopicRole, "dlq">, source: Source, raw: RawRecord): Promise<ProjectorInput> {
    if (raw.value === null || raw.value.length === 0) throw new Poison("PROJECTOR_UNDECODABLE", "empty value");
    let decoded: Awaited<ReturnType<Serde["decode"]>>;
    try {
      decoded = await this.serde.decode(raw.value);
    } catch (error) {
      const failure = classifyDecodeFailure(error);
      if (failure === undefined) throw error;
      throw new Poison(
        failure.kind === "undecodable" ? "PROJECTOR_UNDECODABLE" : "PROJECTOR_UNKNOWN_SCHEMA",
        failure.message,
      );
    }
    const key = raw.key?.toString("utf8") ?? null;
    const { record } = decoded;
    if (holdsNul(record)) throw new Poison("PROJECTOR_UNSTORABLE_TEXT", `a ${record.type} record`);
    if (role === "capabilities") {
      if (record.type !== "CapabilitySnapshot") throw new Poison("PROJECTOR_WRONG_TOPIC", `a ${record.type} record`);
      if (key !== record.workerId)
        throw new Poison(
          "PROJECTOR_KEY_MISMATCH",
          `key ${JSON.stringify(key)}, workerId ${JSON.stringify(record.workerId)}`,
        );
      const { type: _type, ...snapshot } = record;
      return { kind: "snapshot", source, record: snapshot };
    }
    const expected = role === "observations" ? "observations" : "decisions";
    if (decoded.group !== expected) throw new Poison("PROJECTOR_WRONG_TOPIC", `a ${decoded.typeName} record`);
    if (role === "commands" && record.type !== "RedispatchCommanded" && record.type !== "ProbeRequested")
      throw new Poison("PROJECTOR_WRONG_TOPIC", `a ${record.type} record is not a command`);
    const correlationId = (record as { correlationId: string }).correlationId;
    if (key !== correlationId)
      throw new Poison(
        "PROJECTOR_KEY_MISMATCH",
        `key ${JSON.stringify(key)}, correlationId ${JSON.stringify(correlationId)}`,
      );
    if (role === "observations") return { kind: "observation", source, record: record as Observation };
    return { kind: role === "commands" ? "command" : "decision", source, record: record as Decision };
  }
}
