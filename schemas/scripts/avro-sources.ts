/**
 * Reads the .avsc sources and resolves each top-level event into one self-contained schema:
 * a named type referenced by its full name is inlined at its first use, as Avro requires.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export type AvroJson = string | number | boolean | null | AvroJson[] | { [key: string]: AvroJson };
export type SchemaGroup = "observations" | "decisions" | "state";
export const schemaGroups: readonly SchemaGroup[] = ["observations", "decisions", "state"];

export interface AvroSource {
  group: SchemaGroup | "shared";
  fullName: string;
  schema: { [key: string]: AvroJson };
}

export const avroRoot = new URL("../avro/", import.meta.url).pathname;

export function readSources(root = avroRoot): AvroSource[] {
  const sources: AvroSource[] = [];
  for (const group of ["shared", ...schemaGroups] as const) {
    for (const file of readdirSync(join(root, group))
      .filter((f) => f.endsWith(".avsc"))
      .sort()) {
      const schema = JSON.parse(readFileSync(join(root, group, file), "utf8")) as { [key: string]: AvroJson };
      const fullName = `${String(schema.namespace)}.${String(schema.name)}`;
      if (`${String(schema.name)}.avsc` !== file)
        throw new Error(`${group}/${file} defines ${fullName}: name the file after the type`);
      sources.push({ group, fullName, schema });
    }
  }
  return sources;
}

const primitives = new Set(["null", "boolean", "int", "long", "float", "double", "bytes", "string"]);

/** Inlines every named-type reference at its first use inside `schema`. */
export function resolve(schema: AvroJson, named: Map<string, AvroJson>, defined = new Set<string>()): AvroJson {
  if (typeof schema === "string") {
    if (primitives.has(schema)) return schema;
    if (defined.has(schema)) return schema;
    const definition = named.get(schema);
    if (definition === undefined) throw new Error(`unknown Avro type ${schema}`);
    return resolve(definition, named, defined);
  }
  if (Array.isArray(schema)) return schema.map((s) => resolve(s, named, defined));
  if (schema === null || typeof schema !== "object") return schema;
  const out: { [key: string]: AvroJson } = { ...schema };
  if ((schema.type === "record" || schema.type === "enum") && typeof schema.name === "string") {
    defined.add(`${String(schema.namespace)}.${schema.name}`);
  }
  if (schema.type === "record" && Array.isArray(schema.fields)) {
    out.fields = schema.fields.map((field) => {
      const f = field as { [key: string]: AvroJson };
      return { ...f, type: resolve(f.type as AvroJson, named, defined) };
    });
  } else if (schema.type === "array") {
    out.items = resolve(schema.items as AvroJson, named, defined);
  } else if (schema.type === "map") {
    out.values = resolve(schema.values as AvroJson, named, defined);
  } else if (
    typeof schema.type === "object" ||
    (typeof schema.type === "string" &&
      !["record", "enum", "fixed"].includes(schema.type) &&
      !primitives.has(schema.type))
  ) {
    out.type = resolve(schema.type as AvroJson, named, defined);
  }
  return out;
}

export interface ResolvedEvent {
  group: SchemaGroup;
  name: string;
  schema: AvroJson;
}

export function resolveEvents(sources = readSources()): ResolvedEvent[] {
  const named = new Map(sources.map((s) => [s.fullName, s.schema as AvroJson]));
  return sources
    .filter((s): s is AvroSource & { group: SchemaGroup } => s.group !== "shared")
    .map((s) => ({ group: s.group, name: String(s.schema.name), schema: resolve(s.schema, named) }));
}
