/**
 * JSON Schema (2020-12, as OpenAPI 3.1 uses it) of the ingest JSON, derived from the Avro schemas
 * that the registry holds and from the core's input vocabulary: one source of truth for the wire, the
 * request validation and the docs.
 *
 * The schema describes exactly what the core's parser (and the non-blank key check of
 * validate-batch.ts) accepts: a value valid under it is accepted, and an accepted value is valid
 * under it. The one constraint JSON Schema cannot state is that a given `cardHash` equals the hash
 * of the card; its description says so. ingest-schema.test.ts holds both directions.
 */
import {
  channelSpellings,
  isoDateTimePattern,
  observationTypeNames,
  partKindSpellings,
  spellingsOf,
  taskStateSpellings,
} from "@a2a-ledger/core";
import { avroSchemas } from "@a2a-ledger/schemas";

export type JsonSchema = { [key: string]: JsonValue };
type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

type AvroSchema = string | AvroSchema[] | { [key: string]: unknown };

/** avsc validates a long as a JavaScript number within ±(2^53 − 2): the range an Avro long takes here. */
export const avroLongLimit = 9_007_199_254_740_990;

const primitives: Readonly<Record<string, JsonSchema>> = {
  null: { type: "null" },
  boolean: { type: "boolean" },
  int: { type: "integer", minimum: -2147483648, maximum: 2147483647 },
  long: { type: "integer", minimum: -avroLongLimit, maximum: avroLongLimit },
  float: { type: "number" },
  double: { type: "number" },
  string: { type: "string" },
  bytes: { type: "string" },
};

/** What String.prototype.trim removes (ECMAScript WhiteSpace and LineTerminator), as one class. */
const trimmedCharacters = "\\t\\n\\u000b\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff";
/** A string with at least one character that trim() keeps: ingest refuses blank keys. */
export const notBlankPattern = `[^${trimmedCharacters}]`;

const timestamp: JsonSchema = {
  anyOf: [
    { type: "integer", minimum: -avroLongLimit, maximum: avroLongLimit, description: "Epoch milliseconds." },
    {
      type: "string",
      pattern: isoDateTimePattern,
      description: "ISO-8601 date-time with an offset (Z or ±hh:mm); a local time is refused.",
    },
  ],
};

/** The Avro enums whose input spellings the vocabulary widens. */
const spelledEnums: Readonly<Record<string, { spellings: readonly string[]; note: string }>> = {
  TaskState: {
    spellings: spellingsOf(taskStateSpellings),
    note: "A2A v1.0 ProtoJSON name, the v0.3 gRPC TASK_STATE_CANCELLED, or a v0.3 JSON name; the raw value is kept in rawState.",
  },
  ObservationChannel: { spellings: spellingsOf(channelSpellings), note: "The symbol or its kebab-case name." },
  PartKind: { spellings: spellingsOf(partKindSpellings), note: "The symbol or its lower-case name." },
};

type Overlay = Readonly<Record<string, { schema?: JsonSchema; optional?: boolean; extra?: boolean }>>;

/** Fields whose input shape differs from the Avro field, by record and field name. */
function overlays(maxDepth: number): Readonly<Record<string, Overlay>> {
  const keys: Overlay = {
    eventId: {
      schema: {
        type: "string",
        minLength: 1,
        pattern: notBlankPattern,
        description: "Producer-chosen; the de-duplication key. Not blank.",
      },
    },
    correlationId: {
      schema: {
        type: "string",
        minLength: 1,
        pattern: notBlankPattern,
        description: "Durable key of the logical task across attempts and workers; the Kafka key. Not blank.",
      },
    },
  };
  const common = Object.fromEntries(observationTypeNames.map((t) => [t, keys]));
  return {
    ...common,
    AgentCardObserved: {
      ...keys,
      card: {
        schema: {
          description: `The Agent Card as fetched: a JSON object, or its JSON text (an object). At most ${maxDepth} levels deep; numbers within the double range (I-JSON, RFC 7493), as RFC 8785 hashing needs.`,
          anyOf: [
            { $ref: "#/components/schemas/CardObject" },
            {
              type: "string",
              pattern: "^[\\t\\n\\r ]*\\{[\\s\\S]*\\}[\\t\\n\\r ]*$",
              contentMediaType: "application/json",
              contentSchema: { $ref: "#/components/schemas/CardObject" },
            },
          ],
        },
      },
      cardHash: {
        optional: true,
        schema: {
          type: ["string", "null"],
          pattern: "^[0-9a-fA-F]{64}$",
          description:
            "sha256 (hex, any case) of the RFC 8785 canonical JSON of the card. Computed when absent or null; when given it must equal the card's hash (a constraint JSON Schema cannot state).",
        },
      },
    },
    TaskStateObserved: {
      ...keys,
      rawState: {
        optional: true,
        schema: { type: "string", description: "The state exactly as it arrived; defaults to `state`." },
      },
    },
    TaskNotFoundObserved: {
      ...keys,
      errorCode: {
        schema: {
          type: ["string", "number"],
          description: "-32001, 404 or NOT_FOUND, as it arrived; a number is kept as its decimal text.",
        },
      },
    },
    ArtifactPart: {
      mimeType: {
        optional: true,
        extra: true,
        schema: { type: ["string", "null"], description: "v0.3 name of mediaType; give one of the two, not both." },
      },
    },
  };
}

/** Extra constraints on a record's object schema, by record name. */
const recordConstraints: Readonly<Record<string, JsonSchema>> = {
  ArtifactPart: { not: { required: ["mimeType", "mediaType"] } },
};

const shortName = (name: string): string => name.slice(name.lastIndexOf(".") + 1);

/**
 * The card as the parser bounds it: an object (depth 1) whose values nest at most `maxDepth` levels in
 * all, with every number inside the double range. Level n is `CardValue{n}`; the last allows no container.
 */
function cardSchemas(maxDepth: number): Record<string, JsonSchema> {
  const scalar: JsonSchema[] = [
    { type: ["null", "boolean", "string"] },
    { type: "number", minimum: -Number.MAX_VALUE, maximum: Number.MAX_VALUE },
  ];
  const schemas: Record<string, JsonSchema> = {};
  const level = (depth: number): string => `#/components/schemas/CardValue${depth}`;
  for (let depth = maxDepth + 1; depth >= 2; depth--) {
    schemas[`CardValue${depth}`] =
      depth > maxDepth
        ? { anyOf: scalar }
        : {
            anyOf: [
              ...scalar,
              { type: "array", items: { $ref: level(depth + 1) } },
              { type: "object", additionalProperties: { $ref: level(depth + 1) } },
            ],
          };
  }
  schemas["CardObject"] = {
    type: "object",
    description: "An Agent Card (free-form JSON object).",
    additionalProperties: maxDepth >= 1 ? { $ref: level(2) } : false,
  };
  return schemas;
}

class Converter {
  readonly components: Record<string, JsonSchema> = {};

  constructor(private readonly overlay: Readonly<Record<string, Overlay>>) {}

  convert(avro: AvroSchema): JsonSchema {
    if (typeof avro === "string") {
      const primitive = primitives[avro];
      return primitive !== undefined ? { ...primitive } : { $ref: `#/components/schemas/${shortName(avro)}` };
    }
    if (Array.isArray(avro)) return this.union(avro);
    const type = avro["type"] as AvroSchema;
    if (avro["logicalType"] === "timestamp-millis") return { ...timestamp };
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

  /** A union: `null` joins the other branch's type where it can, so nullable fields read as `type: [T, "null"]`. */
  private union(branches: AvroSchema[]): JsonSchema {
    const converted = branches.map((branch) => this.convert(branch));
    const nullable = converted.some((s) => s["type"] === "null");
    const others = converted.filter((s) => s["type"] !== "null");
    const [only] = others;
    if (
      nullable &&
      others.length === 1 &&
      only !== undefined &&
      typeof only["type"] === "string" &&
      only["anyOf"] === undefined
    )
      return { ...only, type: [only["type"], "null"] };
    return { anyOf: converted };
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
    const spelled = spelledEnums[name];
    const doc = typeof avro["doc"] === "string" ? avro["doc"] : undefined;
    const schema: JsonSchema = { type: "string", enum: spelled ? [...spelled.spellings] : symbols };
    const description = [doc, spelled?.note].filter((d) => d !== undefined).join(" ");
    if (description !== "") schema["description"] = description;
    return schema;
  }

  record(avro: { [key: string]: unknown }): JsonSchema {
    const name = shortName(String(avro["name"]));
    const fields = avro["fields"] as { name: string; type: AvroSchema; doc?: string; default?: unknown }[];
    const overlay = this.overlay[name] ?? {};
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
      if (lenient.extra && lenient.schema) properties[extra] = lenient.schema;
    }
    const schema: JsonSchema = {
      type: "object",
      additionalProperties: false,
      required,
      properties,
      ...recordConstraints[name],
    };
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

export interface ObservationSchemaOptions {
  /** A2A_LEDGER_INGEST_MAX_DEPTH: how deep the card may nest. */
  maxDepth: number;
  schemas?: typeof avroSchemas;
}

export function observationJsonSchemas(options: ObservationSchemaOptions): ObservationSchemas {
  const schemas = options.schemas ?? avroSchemas;
  const converter = new Converter(overlays(options.maxDepth));
  const types = Object.keys(schemas.observations);
  for (const [typeName, avro] of Object.entries(schemas.observations)) {
    const record = converter.record(avro as { [key: string]: unknown });
    const properties = record["properties"] as Record<string, JsonValue>;
    record["properties"] = { type: { const: typeName, description: "The observation type." }, ...properties };
    record["required"] = ["type", ...(record["required"] as string[])];
    converter.components[typeName] = record;
  }
  if (types.includes("AgentCardObserved")) Object.assign(converter.components, cardSchemas(options.maxDepth));
  const observation: JsonSchema = {
    oneOf: types.map((t) => ({ $ref: `#/components/schemas/${t}` })),
    discriminator: {
      propertyName: "type",
      mapping: Object.fromEntries(types.map((t) => [t, `#/components/schemas/${t}`])),
    },
  };
  return { components: converter.components, observation, types };
}
