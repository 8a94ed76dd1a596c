/**
 * Decision drafts (what a rule says) and their envelope (what the decider adds): deterministic
 * decisionId, rulesVersion, decidedAt = the cause event's occurredAt, correlationId, causeEventIds.
 */
import {
  avroSchemas,
  type ContractViolation,
  type Decision,
  type DecisionType,
  type DefaultedFields,
} from "@a2a-ledger/schemas";

type Envelope = "decisionId" | "correlationId" | "causeEventIds" | "rulesVersion" | "decidedAt";

/**
 * A decision without its envelope; fields with an Avro default may be left out (the envelope fills
 * them in); `causeEventIds` lists causes beyond the observation itself.
 */
export type DecisionDraft = Decision extends infer D
  ? D extends Decision
    ? Omit<D, Envelope | DefaultedFields[D["type"]]> &
        Partial<Pick<D, Extract<Exclude<DefaultedFields[D["type"]], Envelope>, keyof D>>> & { causeEventIds?: string[] }
    : never
  : never;

export type ViolationDraft = Extract<DecisionDraft, { type: "ContractViolation" }>;

/** `${eventId}:${kind}:${i}` — the kind is the decision type, or the violation kind for violations. */
export function decisionKind(d: DecisionDraft | Decision): string {
  return d.type === "ContractViolation" ? (d as ContractViolation).kind : d.type;
}

interface FieldDefault {
  name: string;
  /** Whether the field has a default, and which. */
  hasDefault: boolean;
  value: unknown;
}

const fieldsByType = new Map<DecisionType, readonly FieldDefault[]>();

/** The fields of a decision type in schema order, with their defaults; looked up once per type. */
const envelopeFields: readonly string[] = ["decisionId", "correlationId", "causeEventIds", "rulesVersion", "decidedAt"];

/** The fields of a decision type after its envelope (every schema starts with the envelope, in this order). */
function fieldsOf(type: DecisionType): readonly FieldDefault[] {
  let fields = fieldsByType.get(type);
  if (fields === undefined) {
    const schema = avroSchemas.decisions[type] as { fields: readonly { name: string; default?: unknown }[] };
    if (schema.fields.slice(0, envelopeFields.length).some((f, i) => f.name !== envelopeFields[i]))
      throw new Error(`${type}: the schema does not start with the decision envelope`);
    fields = schema.fields
      .slice(envelopeFields.length)
      .map((f) => ({ name: f.name, hasDefault: "default" in f, value: f.default }));
    fieldsByType.set(type, fields);
  }
  return fields;
}

/** What caused a decision: an observation, or (for a re-examination) the capability snapshot that changed. */
export interface DecisionCause {
  eventId: string;
  correlationId: string;
  occurredAt: number;
}

/**
 * The draft as a whole record: envelope, then every field in schema order, defaults for those left
 * out. `position` names the decision among its cause's: its index by default; a re-examination, whose
 * cause (a capability snapshot) can decide in many correlations, uses the correlation id.
 */
export function finalizeDecisions(
  obs: DecisionCause,
  drafts: readonly DecisionDraft[],
  rulesVersion: string,
  position: (index: number) => string = String,
): Decision[] {
  return drafts.map((draft, i) => {
    const extra = draft.causeEventIds;
    const causes = extra === undefined || extra.length === 0 ? [obs.eventId] : [...new Set([obs.eventId, ...extra])];
    const given = draft as unknown as Record<string, unknown>;
    const record: Record<string, unknown> = {
      type: draft.type,
      decisionId: `${obs.eventId}:${decisionKind(draft)}:${position(i)}`,
      correlationId: obs.correlationId,
      causeEventIds: causes,
      rulesVersion,
      decidedAt: obs.occurredAt,
    };
    for (const f of fieldsOf(draft.type)) {
      const value = given[f.name];
      record[f.name] = value !== undefined ? value : Array.isArray(f.value) ? [] : f.value;
    }
    return record as unknown as Decision;
  });
}

/**
 * The identity of a violation for de-duplication across redundant observers. Divergent artifacts are
 * identified by their (stable) detail — output and attempt pair — since their media sets may grow.
 */
export function violationKey(
  v: Pick<ContractViolation, "kind" | "observed" | "detail"> &
    Partial<Pick<ContractViolation, "serverTaskId" | "allowed" | "workerId">>,
): string {
  if (v.kind === "DIVERGENT_ARTIFACTS") return `${v.kind}|${v.detail}`;
  return [v.kind, v.workerId ?? "", v.serverTaskId ?? "", v.observed, (v.allowed ?? []).join(",")].join("|");
}
