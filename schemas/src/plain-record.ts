/**
 * Plain objects from avsc's decoded values. avsc reads a record into an instance of a class it
 * generates per record type; the ledger's events travel as plain objects: `type` first, then the
 * fields in schema order, nested records plain too (the shape every reader compares, byte for byte
 * once serialized). One copier per record type, compiled once into a single object literal, so a
 * decoded event costs one allocation more than avsc's own read; values that are already plain
 * (strings, numbers, booleans, enums, bytes, arrays and maps of those) are taken as they are.
 */
import avro from "avsc";

type Copy = (value: unknown) => unknown;

/** The copier of each type that needs one; `null` when the type's values are already plain. */
const copiers = new WeakMap<avro.Type, Copy | null>();
const events = new WeakMap<avro.Type, Map<string, Copy>>();

/** Any value made of plain objects and arrays (the catalogue's unions never need it; kept for other schemas). */
function toPlain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toPlain);
  if (value !== null && typeof value === "object" && !Buffer.isBuffer(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = toPlain(v);
    return out;
  }
  return value;
}

/** `{ "a": v["a"], "b": c[1](v["b"]) }` for the fields of a record, each field copied by its copier. */
function literal(fields: readonly avro.types.Field[], copies: (Copy | undefined)[]): string {
  return fields
    .map(
      (f, i) =>
        `${JSON.stringify(f.name)}: ${copies[i] === undefined ? "" : `c[${i}](`}v[${JSON.stringify(f.name)}]${copies[i] === undefined ? "" : ")"}`,
    )
    .join(", ");
}

function recordCopier(type: avro.types.RecordType, lead: string, leadValue: unknown): Copy {
  const copies = type.fields.map((f) => copierOf(f.type));
  // Field names are Avro names ([A-Za-z_][A-Za-z0-9_]*, avsc refuses others), quoted all the same.
  const make = new Function(
    "c",
    "t",
    `return function (v) { return { ${lead}${literal(type.fields, copies)} }; };`,
  ) as (c: (Copy | undefined)[], t: unknown) => Copy;
  return make(copies, leadValue);
}

/** How a value of `type` becomes plain, or undefined when it already is. */
export function copierOf(type: avro.Type): Copy | undefined {
  const known = copiers.get(type);
  if (known !== undefined) return known ?? undefined;
  if (type instanceof avro.types.RecordType) {
    // A recursive schema meets itself while its copier is built: refer to it late.
    let built: Copy | undefined;
    copiers.set(type, (v) => (built as Copy)(v));
    built = recordCopier(type, "", undefined);
    copiers.set(type, built);
    return built;
  }
  let copy: Copy | undefined;
  if (type instanceof avro.types.ArrayType) {
    const item = copierOf(type.itemsType);
    if (item !== undefined) copy = (v) => (v as unknown[]).map(item);
  } else if (type instanceof avro.types.MapType) {
    const item = copierOf(type.valuesType);
    if (item !== undefined) {
      copy = (v) => {
        const out: Record<string, unknown> = {};
        for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[k] = item(x);
        return out;
      };
    }
  } else if (type instanceof avro.types.UnwrappedUnionType || type instanceof avro.types.WrappedUnionType) {
    if (
      (type.types as avro.Type[]).some((t) => copierOf(t) !== undefined) ||
      type instanceof avro.types.WrappedUnionType
    )
      copy = toPlain;
  }
  copiers.set(type, copy ?? null);
  return copy;
}

/** The plain event of a decoded record of `type`: `{ type: typeName, ...fields }` in schema order. */
export function eventCopier(type: avro.Type, typeName: string): (value: unknown) => Record<string, unknown> {
  if (!(type instanceof avro.types.RecordType))
    throw new Error(`an event schema is a record, ${typeName} is a ${type.typeName}`);
  let byName = events.get(type);
  if (byName === undefined) events.set(type, (byName = new Map()));
  let copy = byName.get(typeName);
  if (copy === undefined) {
    copy = recordCopier(type, "type: t, ", typeName);
    byName.set(typeName, copy);
  }
  return copy as (value: unknown) => Record<string, unknown>;
}
