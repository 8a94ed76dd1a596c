/**
 * A service's own settings, declared once: each one's environment variable, kind, default, bounds and
 * meaning. The declaration reads them (through an `EnvReader`, so deprecated names and the list of
 * problems work as for every other setting), types what it read, and renders the table the service's
 * README carries between `<!-- settings -->` and `<!-- /settings -->` (settings-docs.ts holds the two
 * together).
 */
import type { EnvReader } from "./env-reader.ts";

interface Documented {
  /** The environment variable. */
  readonly name: string;
  /** What it sets, for the README's table: one sentence, Markdown. */
  readonly doc: string;
  /** The default as the README says it, when the value is computed (say, from the heap limit). */
  readonly defaultText?: string;
}

export type Setting =
  | (Documented & {
      readonly kind: "text";
      readonly default?: string;
      /** What a value must match; `shape` names it (README and problem), `refusal` words the problem. */
      readonly pattern?: RegExp;
      readonly shape?: string;
      /** The problem after `NAME="value"` (after `NAME` when secret); by default `must be <shape>`. */
      readonly refusal?: string;
      /** A password or token: a problem never shows the value. */
      readonly secret?: boolean;
      /** Unset is a problem (`NAME is required`). */
      readonly required?: boolean;
    })
  | (Documented & { readonly kind: "choice"; readonly values: readonly string[]; readonly default?: string })
  | (Documented & { readonly kind: "int"; readonly default?: number; readonly min: number; readonly max: number })
  /** Milliseconds, written as `7d`, `90s`, `500ms` or bare milliseconds. */
  | (Documented & { readonly kind: "duration"; readonly default: number; readonly min: number; readonly max: number })
  | (Documented & { readonly kind: "bool"; readonly default: boolean });

/** What a declared setting reads as: unset without a default is `undefined`. */
export type SettingValue<S extends Setting> = S extends { kind: "bool" }
  ? boolean
  : S extends { kind: "choice"; values: readonly (infer V)[] }
    ? S extends { default: string }
      ? V
      : V | undefined
    : S extends { kind: "duration" }
      ? number
      : S extends { kind: "int"; default: number }
        ? number
        : S extends { kind: "int" }
          ? number | undefined
          : S extends { kind: "text"; default: string }
            ? string
            : S extends { kind: "text"; required: true }
              ? string
              : string | undefined;

export type SettingsValues<D extends Record<string, Setting>> = { -readonly [K in keyof D]: SettingValue<D[K]> };

export interface Settings<D extends Record<string, Setting>> {
  readonly declared: D;
  /** Reads every declared setting; a bad value is a problem on the reader, and reads as its default. */
  read(reader: EnvReader): SettingsValues<D>;
  /** The README's table: one row per setting, in declaration order. */
  markdown(): string;
}

const units: readonly [string, number][] = [
  ["d", 86_400_000],
  ["h", 3_600_000],
  ["m", 60_000],
  ["s", 1_000],
];

/** Milliseconds in the largest unit that divides them: `7d`, `90s`, `1500ms`. */
export function formatDuration(ms: number): string {
  for (const [unit, size] of units) if (ms !== 0 && ms % size === 0) return `${ms / size}${unit}`;
  return `${ms}ms`;
}

function readOne(reader: EnvReader, s: Setting): unknown {
  switch (s.kind) {
    case "bool":
      return reader.bool(s.name, s.default);
    case "duration":
      return reader.duration(s.name, s.default, s.min, s.max);
    case "int":
      if (reader.text(s.name) === undefined) return s.default;
      return reader.int(s.name, s.default ?? s.min, s.min, s.max);
    case "choice": {
      const value = reader.text(s.name);
      if (value === undefined) return s.default;
      if (s.values.includes(value)) return value;
      reader.problems.push(`${s.name}=${JSON.stringify(value)} must be one of ${s.values.join(", ")}`);
      return s.default;
    }
    case "text": {
      const value = reader.text(s.name);
      if (value === undefined && s.required === true) {
        reader.problems.push(`${s.name} is required`);
        return "";
      }
      if (value === undefined) return s.default;
      if (s.pattern !== undefined && !s.pattern.test(value)) {
        const refusal = s.refusal ?? `must be ${s.shape ?? `like /${s.pattern.source}/`}`;
        reader.problems.push(
          s.secret === true
            ? `${s.name} ${refusal} (value not shown)`
            : `${s.name}=${JSON.stringify(value)} ${refusal}`,
        );
        // As if unset: a required setting stays a string, as its type says.
        return s.required === true ? "" : s.default;
      }
      return value;
    }
  }
}

const integer = (n: number) => n.toLocaleString("en-US");

function accepted(s: Setting): string {
  switch (s.kind) {
    case "bool":
      return "`true` or `false`";
    case "duration":
      return `duration, ${formatDuration(s.min)} to ${formatDuration(s.max)}`;
    case "int":
      return `integer, ${integer(s.min)} to ${integer(s.max)}`;
    case "choice":
      return s.values.map((v) => `\`${v}\``).join(", ");
    case "text":
      return s.shape ?? "text";
  }
}

function defaultOf(s: Setting): string {
  if (s.defaultText !== undefined) return s.defaultText;
  if (s.kind === "text" && s.required === true) return "required";
  if (s.default === undefined) return "unset";
  if (s.kind === "text" && s.secret === true) return "a built-in value";
  if (s.kind === "duration") return `\`${formatDuration(s.default)}\``;
  return `\`${s.kind === "int" ? s.default : String(s.default)}\``;
}

/** What several services' settings accept, spread into a declaration (`...settingShapes.host`). */
export const settingShapes = {
  /** A listening address: a host name, IPv4 or IPv6. */
  host: {
    kind: "text",
    pattern: /^[A-Za-z0-9.:\-[\]]+$/,
    shape: "a host name or IP address",
    refusal: "is not a host name or IP address",
  },
  /** A consumer group or similar Kafka name. */
  name: { kind: "text", pattern: /^[A-Za-z0-9._-]{1,200}$/, shape: "letters, digits, '.', '_' and '-' only" },
  /** A bearer token, never shown in a problem. */
  token: {
    kind: "text",
    pattern: /^\S+$/,
    shape: "a token without whitespace",
    refusal: "must not contain whitespace",
    secret: true,
    defaultText: "none",
  },
} as const;

export function defineSettings<const D extends Record<string, Setting>>(declared: D): Settings<D> {
  const names = Object.values(declared).map((s) => s.name);
  const twice = names.filter((n, i) => names.indexOf(n) !== i);
  if (twice.length > 0) throw new Error(`settings declared twice: ${twice.join(", ")}`);
  return {
    declared,
    read(reader) {
      const values: Record<string, unknown> = {};
      for (const [key, s] of Object.entries(declared)) values[key] = readOne(reader, s);
      return values as SettingsValues<D>;
    },
    markdown() {
      const cell = (text: string) => text.replaceAll("|", "\\|");
      const rows = Object.values(declared).map(
        (s) => `| \`${s.name}\` | ${cell(defaultOf(s))} | ${cell(accepted(s))} | ${cell(s.doc)} |`,
      );
      return ["| setting | default | accepted | what it sets |", "|---|---|---|---|", ...rows].join("\n");
    },
  };
}
