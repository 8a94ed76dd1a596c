/**
 * Validates a record against its Avro schema, reporting every problem with a JSON path.
 * Pure: no registry, no I/O. The same schemas the registry holds decide what is valid.
 */
import avro from "avsc";
import { avroSchemas } from "./generated/avro-schemas.ts";
import type { DecisionType, ObservationType, StateRecordType } from "./generated/types.ts";

export type SchemaGroup = keyof typeof avroSchemas;
export type TypeName<G extends SchemaGroup> = G extends "observations"
  ? ObservationType
  : G extends "decisions"
    ? DecisionType
    : StateRecordType;

export interface SchemaIssue {
  /** JSON path inside the record, e.g. `parts[0].mediaType`; empty for the record itself. */
  path: string;
  message: string;
}

const types: Record<SchemaGroup, Map<string, avro.Type>> = {
  observations: new Map(),
  decisions: new Map(),
  state: new Map(),
};

/** The avsc Type of an event, built once. */
export function avroType<G extends SchemaGroup>(group: G, name: TypeName<G>): avro.Type {
  const built = types[group];
  let type = built.get(name);
  if (type === undefined) {
    const schema = (avroSchemas[group] as Record<string, unknown>)[name];
    if (schema === undefined) throw new Error(`no ${group} schema named ${name}`);
    type = avro.Type.forSchema(schema as avro.Schema);
    built.set(name, type);
  }
  return type;
}

export function isKnownType<G extends SchemaGroup>(group: G, name: unknown): name is TypeName<G> {
  return typeof name === "string" && Object.hasOwn(avroSchemas[group], name);
}

function describe(value: unknown): string {
  if (value === undefined) return "missing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string")
    return `string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return typeof value === "object" ? "an object" : `${typeof value} ${String(value)}`;
}

function expected(type: avro.Type): string {
  const t = type as avro.Type & { symbols?: string[]; itemsType?: avro.Type; types?: avro.Type[] };
  if (t.typeName === "enum" && t.symbols) return `one of ${t.symbols.join(", ")}`;
  if (t.typeName === "union:unwrapped" && t.types) return t.types.map(expected).join(" or ");
  if (t.typeName === "array") return "an array";
  if (t.typeName === "record") return "an object";
  if (t.typeName === "long" || t.typeName === "int") return `an integer (${t.typeName})`;
  return String(t.typeName);
}

function undeclaredFields(type: avro.Type, value: unknown, path: string, issues: SchemaIssue[]): void {
  if (value === null || typeof value !== "object") return;
  if (type instanceof avro.types.RecordType) {
    const declared = new Map(type.fields.map((f) => [f.name, f.type]));
    for (const [key, child] of Object.entries(value)) {
      const childPath = path === "" ? key : `${path}.${key}`;
      const fieldType = declared.get(key);
      if (fieldType === undefined) issues.push({ path: childPath, message: "unknown field" });
      else undeclaredFields(fieldType, child, childPath, issues);
    }
  } else if (type instanceof avro.types.ArrayType && Array.isArray(value)) {
    value.forEach((item, i) => undeclaredFields(type.itemsType, item, `${path}[${i}]`, issues));
  } else if (type instanceof avro.types.UnwrappedUnionType) {
    const branch = type.types.find((t) => t instanceof avro.types.RecordType || t instanceof avro.types.ArrayType);
    if (branch) undeclaredFields(branch, value, path, issues);
  }
}

const strictCheck = { noUndeclaredFields: true };

/**
 * Whether `value` is a valid event of `group`/`name` with no undeclared field anywhere: one avsc check,
 * no paths. It agrees with `validateRecord(...).length === 0` because avsc's `noUndeclaredFields` visits
 * every record the undeclared-field walk visits (the catalogue's unions are null plus one primitive or
 * enum; validate.test.ts keeps it so).
 */
export function isValidRecord<G extends SchemaGroup>(group: G, name: TypeName<G>, value: unknown): boolean {
  return avroType(group, name).isValid(value, strictCheck);
}

/** Every schema problem of `value` as an event of `group`/`name`; empty when valid. Unknown fields are problems too. */
export function validateRecord<G extends SchemaGroup>(group: G, name: TypeName<G>, value: unknown): SchemaIssue[] {
  const type = avroType(group, name);
  // Valid input, the common case, costs one check; the walks that name every problem run only on failure.
  if (type.isValid(value, strictCheck)) return [];
  const issues: SchemaIssue[] = [];
  type.isValid(value, {
    errorHook(path: string[], val: unknown, t: avro.Type) {
      const at = path
        .map((p) => (/^\d+$/.test(p) ? `[${p}]` : `.${p}`))
        .join("")
        .replace(/^\./, "");
      issues.push({ path: at, message: `expected ${expected(t)}, got ${describe(val)}` });
    },
  });
  undeclaredFields(type, value, "", issues);
  return issues;
}
