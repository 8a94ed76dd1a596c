/**
 * Test helpers over the OpenAPI document's JSON Schemas: a generator of values valid under a schema
 * (fast-check), and a validator (Ajv, draft 2020-12) that also asserts `contentMediaType:
 * application/json` with its `contentSchema`, which draft 2020-12 leaves as annotations.
 *
 * The generator covers the keywords the ingest document uses and throws on any other, so a schema
 * change it does not understand fails the tests instead of going untested.
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import fc from "fast-check";
import type { JsonSchema } from "../src/json-schema.ts";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = { [key: string]: unknown };

const handled = new Set([
  "$ref",
  "anyOf",
  "oneOf",
  "allOf",
  "const",
  "enum",
  "type",
  "pattern",
  "minLength",
  "minimum",
  "maximum",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "minItems",
  "maxItems",
  "not",
  "contentMediaType",
  "contentSchema",
  "description",
  "discriminator",
]);

const jsonWhitespace = fc.stringMatching(/^[\t\n\r ]{0,3}$/);

export interface ArbitraryOptions {
  /** Containers nested beyond this many levels are not generated where a scalar branch exists. */
  containerBudget: number;
}

/** Values valid under `schema`, with `$ref`s resolved in `root` (an OpenAPI document). */
export function arbitraryOf(
  root: JsonSchema,
  schema: Schema,
  options: ArbitraryOptions = { containerBudget: 4 },
): fc.Arbitrary<Json> {
  const resolve = (ref: string): Schema => {
    let node: unknown = root;
    for (const part of ref.replace(/^#\//, "").split("/")) node = (node as Schema)[part];
    if (node === undefined) throw new Error(`unresolved ${ref}`);
    return node as Schema;
  };
  const isContainer = (s: Schema): boolean => {
    const t = s["$ref"] !== undefined ? resolve(s["$ref"] as string)["type"] : s["type"];
    return t === "object" || t === "array";
  };

  const build = (s: Schema, budget: number): fc.Arbitrary<Json> => {
    for (const key of Object.keys(s))
      if (!handled.has(key)) throw new Error(`the test generator does not handle the keyword ${key}`);
    if (s["$ref"] !== undefined) return build(resolve(s["$ref"] as string), budget);
    if (s["allOf"] !== undefined) {
      const parts = s["allOf"] as Schema[];
      if (parts.length !== 1 || parts[0] === undefined) throw new Error("allOf with more than one schema");
      return build(parts[0], budget);
    }
    for (const key of ["anyOf", "oneOf"] as const) {
      if (s[key] !== undefined) {
        let branches = s[key] as Schema[];
        if (budget <= 0 && branches.some((b) => !isContainer(b))) branches = branches.filter((b) => !isContainer(b));
        return fc.oneof(...branches.map((b) => build(b, budget)));
      }
    }
    if ("const" in s) return fc.constant(s["const"] as Json);
    if (s["enum"] !== undefined) return fc.constantFrom(...(s["enum"] as Json[]));
    const types = Array.isArray(s["type"]) ? (s["type"] as string[]) : [s["type"] as string];
    return fc.oneof(...types.map((t) => typed(t, s, budget)));
  };

  const typed = (type: string, s: Schema, budget: number): fc.Arbitrary<Json> => {
    switch (type) {
      case "null":
        return fc.constant(null);
      case "boolean":
        return fc.boolean();
      case "integer": {
        const min = (s["minimum"] as number | undefined) ?? -(2 ** 31);
        const max = (s["maximum"] as number | undefined) ?? 2 ** 31 - 1;
        return fc.oneof(fc.integer({ min, max }), fc.constantFrom(min, max, 0));
      }
      case "number": {
        const min = (s["minimum"] as number | undefined) ?? -Number.MAX_VALUE;
        const max = (s["maximum"] as number | undefined) ?? Number.MAX_VALUE;
        return fc.oneof(fc.double({ min, max, noNaN: true }), fc.constantFrom(min, max));
      }
      case "string":
        return string(s, budget);
      case "array": {
        const items = s["items"] as Schema;
        const minLength = (s["minItems"] as number | undefined) ?? 0;
        const maxLength = budget <= 0 ? minLength : Math.min((s["maxItems"] as number | undefined) ?? 4, minLength + 3);
        return fc.array(build(items, budget - 1), { minLength, maxLength });
      }
      case "object":
        return object(s, budget);
      default:
        throw new Error(`unknown type ${type}`);
    }
  };

  const string = (s: Schema, budget: number): fc.Arbitrary<Json> => {
    if (s["contentMediaType"] !== undefined) {
      if (s["contentMediaType"] !== "application/json" || s["contentSchema"] === undefined)
        throw new Error("only JSON content with a contentSchema is handled");
      return fc
        .tuple(build(s["contentSchema"] as Schema, budget), jsonWhitespace, jsonWhitespace)
        .map(([value, before, after]) => `${before}${JSON.stringify(value)}${after}`)
        .filter((text) => s["pattern"] === undefined || new RegExp(s["pattern"] as string, "u").test(text));
    }
    const minLength = (s["minLength"] as number | undefined) ?? 0;
    const base =
      s["pattern"] !== undefined
        ? fc.stringMatching(new RegExp(s["pattern"] as string, "u"))
        : fc.string({ unit: "binary", maxLength: 12 });
    return minLength > 0 ? base.filter((text) => [...text].length >= minLength) : base;
  };

  const object = (s: Schema, budget: number): fc.Arbitrary<Json> => {
    const properties = (s["properties"] ?? {}) as Record<string, Schema>;
    const required = new Set((s["required"] ?? []) as string[]);
    const additional = s["additionalProperties"];
    const record: Record<string, fc.Arbitrary<Json>> = {};
    for (const [name, schema] of Object.entries(properties)) record[name] = build(schema, budget - 1);
    const known = fc.record(record, { requiredKeys: [...required] });
    const extra =
      typeof additional === "object" && additional !== null && budget > 0
        ? fc.dictionary(
            fc.string({ maxLength: 8 }).filter((k) => !(k in properties) && k !== "__proto__"),
            build(additional as Schema, budget - 1),
            { maxKeys: 3 },
          )
        : fc.constant({});
    const exclusive = (s["not"] as { required?: string[] } | undefined)?.required;
    return fc.tuple(known, extra, fc.boolean()).map(([k, e, keepFirst]) => {
      const value: Record<string, Json> = { ...e, ...(k as Record<string, Json>) };
      // `not: {required: [a, b]}`: never both.
      if (exclusive !== undefined && exclusive.every((key) => key in value))
        delete value[(keepFirst ? exclusive[1] : exclusive[0]) as string];
      return value;
    });
  };

  return build(schema, options.containerBudget);
}

/** A validator of `schema` (with the document's components), asserting JSON content where the schema declares it. */
export function validatorOf(document: JsonSchema, schema: Schema): ValidateFunction {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addKeyword({ keyword: "discriminator" }); // an OpenAPI annotation; oneOf decides
  ajv.removeKeyword("contentSchema");
  ajv.addKeyword({
    keyword: "contentSchema",
    schemaType: "object",
    compile(content: Schema) {
      const validate = ajv.compile({ $ref: `ingest-openapi${String(content["$ref"])}` });
      return (data: unknown) => {
        if (typeof data !== "string") return true;
        try {
          return validate(JSON.parse(data)) === true;
        } catch {
          return false;
        }
      };
    },
  });
  ajv.addSchema({ $id: "ingest-openapi", components: document["components"] } as object);
  return ajv.compile({ $id: "ingest-request", ...schema, components: document["components"] } as object);
}
