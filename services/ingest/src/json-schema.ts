/**
 * JSON Schema (2020-12, as OpenAPI 3.1 uses it) of the ingest JSON, derived from the Avro schemas
 * that the registry holds: one source of truth for the wire, the request validation and the docs.
 *
 * The ingest JSON is the Avro record plus `type`, with the input leniencies the core's parser
 * implements: times as epoch ms or ISO-8601, task states in v1.0 or v0.3 spelling, `via` in
 * kebab-case, the Agent Card as an object or its JSON text, `cardHash` and `rawState` derived when
 * absent, fields with an Avro default optional.
 */
import { avroSchemas } from "@a2a-ledger/schemas";

export type JsonSchema = { [key: string]: JsonValue };
type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

type AvroSchema = string | AvroSchema[] | { [key: string]: unknown };

const primitives: Readonly<Record<string, JsonSchema>> = {
  null: { type: "null" },
  boolean: { type: "boolean" },
  int: { type: "integer", minimum: -2147483648, maximum: 2147483647 },
  long: { type: "integer" },
  float: { type: "number" },
  double: { type: "number" },
  string: { type: "string" },
  bytes: { type: "string" },
};

/** What the input accepts beyond the Avro symbols, by named type. */
const lenientEnums: Readonly<Record<string, { also: string[]; note: string }>> = {
  TaskState: { also: ["submitted", "working", "input-required", "auth-required", "completed", "failed", "canceled", "rejected", "unknown"], note: "A2A v1.0 ProtoJSON name or its v0.3 spelling; the raw value is kept in rawState." },
  ObservationChannel: { also: ["send-response", "get", "stream", "push", "other"], note: "Also in kebab-case." },
  PartKind: { also: ["text", "raw", "url", "data", "other"], note: "Case-insensitive." },
};

/** Fields whose input shape differs from the Avro field, by record and field name. */
const lenientFields: Readonly<Record<string, Readonly<Record<string, { schema?: JsonSchema; optional?: boolean }>>>> = {
  AgentCardObserved: {
    card: { schema: { description: "The Agent Card as fetched: a JSON object or its JSON text.", anyOf: [{ type: "object" }, { type: "string" }] } },
    cardHash: { optional: true, schema: { type: "string", pattern: "^[0-9a-fA-F]{64}$", description: "sha256 (hex) of the RFC 8785 canonical JSON of the card; computed when absent, checked when given." } },
  },
  TaskStateObserved: { rawState: { optional: true, schema: { type: "string", description: "The state exactly as it arrived; defaults to `state`." } } },
  ArtifactPart: { mimeType: { optional: true, schema: { type: ["string", "null"], description: "v0.3 name of mediaType." } } },
};

const shortName = (name: string): string => name.slice(name.lastIndexOf(".") + 1);

class Converter {
  readonly components: Record<string, JsonSchema> = {};

  convert(avro: AvroSchema): JsonSchema {
    if (typeof avro === "string") {
      const primitive = primitives[avro];
      return primitive !== undefined ? { ...primitive } : { $ref: `#/components/schemas/${shortName(avro)}` };
    }
    if (Array.isArray(avro)) return { anyOf: avro.map((branch) => this.convert(branch)) };
    const type = avro["type"] as AvroSchema;
    if (avro["logicalType"] === "timestamp-millis") {
      return { anyOf: [{ type: "integer", description: "epoch milliseconds" }, { type: "string", format: "date-time" }] };
    }
    switch (type) {
      case "record":
        return this.named(avro, () => this.record(avro));
      case "enum":
        return this.named(avro, () => this.enumeration(avro));
      case "array":
        return { type: "array", items: this.convert(avro["items"] as AvroSchema) };
      case "map":
        return { type: "object", additionalProperties: this.convert(avro["values"] as AvroSchema) };
      case "fixed":
        return { type: "string" };
      default:
        return this.convert(type);
    }
  }

  private named(avro: { [key: string]: unknown }, build: () => JsonSchema): JsonSchema {
    const name = shortName(String(avro["name"]));
    if (this.components[name] === undefined) {
      this.components[name] = {}; // placeholder against recursion
      this.components[name] = build();
    }
    return { $ref: `#/components/schemas/${name}` };
  }

  private enumeration(avro: { [key: string]: unknown }): JsonSchema {
    const name = shortName(String(avro["name"]));
    const symbols = avro["symbols"] as string[];
    const lenient = lenientEnums[name];
    const doc = typeof avro["doc"] === "string" ? avro["doc"] : undefined;
    const schema: JsonSchema = { type: "string", enum: lenient ? [...symbols, ...lenient.also] : symbols };
    const description = [doc, lenient?.note].filter((d) => d !== undefined).join(" ");
    if (description !== "") schema["description"] = description;
    return schema;
  }

  record(avro: { [key: string]: unknown }): JsonSchema {
    const name = shortName(String(avro["name"]));
    const fields = avro["fields"] as { name: string; type: AvroSchema; doc?: string; default?: unknown }[];
    const overlay = lenientFields[name] ?? {};
    const properties: Record<string, JsonValue> = {};
    const required: string[] = [];
    for (const field of fields) {
      const lenient = overlay[field.name];
      const schema: JsonSchema = lenient?.schema ? { ...lenient.schema } : this.convert(field.type);
      if (field.doc !== undefined && schema["description"] === undefined) {
        if (schema["$ref"] !== undefined) properties[field.name] = { allOf: [schema], description: field.doc };
        else properties[field.name] = { ...schema, description: field.doc };
      } else properties[field.name] = schema;
      if (!("default" in field) && !lenient?.optional) required.push(field.name);
    }
    for (const [extra, lenient] of Object.entries(overlay)) {
      if (!(extra in properties) && lenient.schema) properties[extra] = lenient.schema;
    }
    const schema: JsonSchema = { type: "object", additionalProperties: false, required, properties };
    if (typeof avro["doc"] === "string") schema["description"] = avro["doc"];
    return schema;
  }
}

export interface ObservationSchemas {
  /** Named schemas: one per observation type (with its `type` discriminator) and the shared types. */
  components: Record<string, JsonSchema>;
  /** One observation: a oneOf over the types, discriminated by `type`. */
  observation: JsonSchema;
  types: string[];
}

export function observationJsonSchemas(schemas: typeof avroSchemas = avroSchemas): ObservationSchemas {
  const converter = new Converter();
  const types = Object.keys(schemas.observations);
  for (const [typeName, avro] of Object.entries(schemas.observations)) {
    const record = converter.record(avro as { [key: string]: unknown });
    const properties = record["properties"] as Record<string, JsonValue>;
    record["properties"] = { type: { const: typeName, description: "The observation type." }, ...properties };
    record["required"] = ["type", ...(record["required"] as string[])];
    converter.components[typeName] = record;
  }
  const observation: JsonSchema = {
    oneOf: types.map((t) => ({ $ref: `#/components/schemas/${t}` })),
    discriminator: { propertyName: "type", mapping: Object.fromEntries(types.map((t) => [t, `#/components/schemas/${t}`])) },
  };
  return { components: converter.components, observation, types };
}
