/**
 * A static HTML page rendered once from the OpenAPI document: endpoints, error codes and every
 * observation type with its fields. No scripts, no external assets.
 */
import { errorCatalogue, errorCodes } from "./errors.ts";
import type { JsonSchema } from "./json-schema.ts";

const escape = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function typeOf(schema: unknown): string {
  if (typeof schema !== "object" || schema === null) return "";
  const s = schema as Record<string, unknown>;
  if (typeof s["$ref"] === "string") return s["$ref"].replace("#/components/schemas/", "");
  if (Array.isArray(s["allOf"])) return s["allOf"].map(typeOf).join(" & ");
  if (Array.isArray(s["anyOf"])) return s["anyOf"].map(typeOf).join(" | ");
  if ("const" in s) return JSON.stringify(s["const"]);
  if (s["type"] === "array") return `${typeOf(s["items"])}[]`;
  if (Array.isArray(s["enum"])) return s["enum"].map(String).join(" | ");
  const format = typeof s["format"] === "string" ? ` (${s["format"]})` : "";
  return `${Array.isArray(s["type"]) ? s["type"].join(" | ") : String(s["type"] ?? "any")}${format}`;
}

function schemaTable(name: string, schema: Record<string, unknown>): string {
  const properties = (schema["properties"] ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set((schema["required"] ?? []) as string[]);
  const rows = Object.entries(properties)
    .map(
      ([field, s]) =>
        `<tr><td><code>${escape(field)}</code></td><td>${escape(typeOf(s))}</td><td>${required.has(field) ? "yes" : "no"}</td><td>${escape(String(s["description"] ?? ""))}</td></tr>`,
    )
    .join("\n");
  const description = typeof schema["description"] === "string" ? `<p>${escape(schema["description"])}</p>` : "";
  const body =
    rows === ""
      ? `<p><code>${escape(typeOf(schema))}</code> ${escape(String(schema["description"] ?? ""))}</p>`
      : `${description}<table><tr><th>field</th><th>type</th><th>required</th><th>notes</th></tr>\n${rows}</table>`;
  return `<h3 id="${escape(name)}">${escape(name)}</h3>\n${body}`;
}

export function docsPage(openapi: JsonSchema): string {
  const info = openapi["info"] as Record<string, string>;
  const schemas = ((openapi["components"] as Record<string, unknown>)["schemas"] ?? {}) as Record<
    string,
    Record<string, unknown>
  >;
  const paths = openapi["paths"] as Record<string, Record<string, Record<string, unknown>>>;
  const endpoints = Object.entries(paths)
    .flatMap(([path, methods]) =>
      Object.entries(methods).map(
        ([method, op]) =>
          `<li><code>${method.toUpperCase()} ${escape(path)}</code> — ${escape(String(op["summary"] ?? ""))}</li>`,
      ),
    )
    .join("\n");
  const codes = errorCodes
    .map(
      (c) =>
        `<tr><td><code>${c}</code></td><td>${errorCatalogue[c].status}</td><td>${escape(errorCatalogue[c].message)}</td></tr>`,
    )
    .join("\n");
  const types = Object.entries(schemas)
    .filter(([name]) => name !== "Observation" && name !== "Error")
    .map(([name, schema]) => schemaTable(name, schema))
    .join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(info["title"] ?? "")}</title>
<style>body{font-family:system-ui,sans-serif;max-width:70em;margin:2em auto;padding:0 1em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left;vertical-align:top}code{font-size:.95em}</style>
</head><body>
<h1>${escape(info["title"] ?? "")}</h1>
<p>${escape(info["description"] ?? "")}</p>
<p>Machine-readable: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1).</p>
<h2>Endpoints</h2><ul>${endpoints}</ul>
<h2>Error codes</h2><p>Every error answer is <code>{"error", "code", "details"?}</code>; branch on <code>code</code>.</p>
<table><tr><th>code</th><th>status</th><th>meaning</th></tr>${codes}</table>
<h2>Observations</h2><p>Send one object, a JSON array, or NDJSON. Each carries <code>type</code>, one of the records below.</p>
${types}
</body></html>
`;
}
