/**
 * The schema of an observation file: one Avro union of every observation record of the catalogue, in
 * the catalogue's namespace. Each record is written as the branch of its type, so one file carries every
 * observation type and a reader resolves it against the schemas it knows (Avro schema resolution: a
 * file written before a backward-compatible change still reads).
 */
import avro from "avsc";
import { avroSchemas, namespace, type Observation, type ObservationType } from "@a2a-ledger/schemas";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The schemas one after another, each named type defined once (later uses refer to it by full name). */
function withoutRedefinitions(schemas: readonly Json[]): Json[] {
  const defined = new Set<string>();
  const walk = (node: Json, ns: string): Json => {
    if (Array.isArray(node)) return node.map((n) => walk(n, ns));
    if (node === null || typeof node !== "object") return node;
    const named =
      (node["type"] === "record" || node["type"] === "enum" || node["type"] === "fixed") &&
      typeof node["name"] === "string";
    if (!named) return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, k === "default" ? v : walk(v, ns)]));
    const name = node["name"] as string;
    const own = typeof node["namespace"] === "string" ? node["namespace"] : ns;
    const full = name.includes(".") ? name : own === "" ? name : `${own}.${name}`;
    if (defined.has(full)) return full;
    defined.add(full);
    const inner = full.includes(".") ? full.slice(0, full.lastIndexOf(".")) : "";
    return Object.fromEntries(
      Object.entries(node).map(([k, v]) => [k, k === "fields" ? walk(v, inner) : k === "default" ? v : walk(v, inner)]),
    );
  };
  return schemas.map((s) => walk(s, ""));
}

export const observationTypes = Object.keys(avroSchemas.observations) as ObservationType[];

/** The union schema embedded in every observation file this package writes. */
export const observationFileSchema = withoutRedefinitions(
  observationTypes.map((t) => avroSchemas.observations[t] as unknown as Json),
) as avro.Schema;

/** The union as avsc reads and writes it: a record value is wrapped as `{ "a2a.ledger.v1.<Type>": fields }`. */
export const observationFileType = avro.Type.forSchema(observationFileSchema, { wrapUnions: "auto" });

const prefix = `${namespace}.`;

/** The union branch value of an observation (its `type` is not a field of the record). */
export function toBranch(observation: Observation): Record<string, Observation> {
  return { [`${prefix}${observation.type}`]: observation };
}

/** Per branch name: the observation type and its fields in schema order. */
const branches = new Map<string, { type: ObservationType; fields: readonly string[] }>(
  observationTypes.map((t) => [
    `${prefix}${t}`,
    {
      type: t,
      fields: (avroSchemas.observations[t] as unknown as { fields: { name: string }[] }).fields.map((f) => f.name),
    },
  ]),
);

/**
 * An observation from a decoded union value: a plain object, `type` first, then the fields in schema
 * order — the shape the Serde gives records from the topics, so the rules see one shape per type.
 */
export function fromBranch(value: Record<string, Record<string, unknown>>): Observation {
  for (const key in value) {
    const branch = branches.get(key);
    if (branch === undefined) throw new Error(`not an observation: ${key}`);
    const record = value[key] as Record<string, unknown>;
    const out: Record<string, unknown> = { type: branch.type };
    for (const f of branch.fields) out[f] = record[f];
    return out as unknown as Observation;
  }
  throw new Error("empty union value");
}
