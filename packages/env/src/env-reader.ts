/**
 * Reading a service's configuration from environment variables, the same way in every service: values
 * trimmed (empty means unset), every bad value collected as a problem that names the variable, so a
 * service refuses to start with all of its configuration's problems at once.
 *
 * Names: each service reads its own settings as `A2A_LEDGER_<SERVICE>_*` (INGEST, PROJECTOR, RECONCILER,
 * DISPATCHER, PROXY); settings every process shares keep their names (`sharedSettings`). A service that
 * renamed its settings gives `renamed: {from: "INGEST_", to: "A2A_LEDGER_INGEST_"}`: a name read under the
 * new prefix is also read under the old one when the new one is unset, with one deprecation warning per
 * old name and process (naming old and new); when both are set the new name wins, and the old one is
 * still reported as deprecated.
 */
/**
 * Settings read under the same name by every process (not prefixed by a service), and besides these
 * every `KAFKA_*` client setting of @a2a-ledger/kafka (client-config.ts: security protocol, SASL, TLS).
 */
export const sharedSettings = [
  "KAFKA_BROKERS",
  "SCHEMA_REGISTRY_URL",
  "KAFKA_CLIENT_CONFIG",
  "A2A_LEDGER_KAFKA_LOG_LEVEL",
  "A2A_LEDGER_LOG_LEVEL",
  "A2A_LEDGER_RULES",
  "A2A_LEDGER_TRUSTED_VENDORS",
  "A2A_LEDGER_TOPIC_SUFFIX",
  "A2A_LEDGER_PARTITIONS",
  "A2A_LEDGER_INSTANCE_ID",
  "A2A_LEDGER_DATA_DIR",
] as const;

/** An old name read for a new one. */
export interface DeprecatedName {
  old: string;
  new: string;
}

export interface EnvReaderOptions {
  /** The service's settings moved from prefix `from` to prefix `to`; old names are still read. */
  renamed?: { from: string; to: string };
  /** Called for every old name read; by default a DeprecationWarning, once per old name and process. */
  onDeprecated?: (name: DeprecatedName) => void;
}

const warned = new Set<string>();

/** Emits one DeprecationWarning per old name and process, naming the old and the new one. */
export function warnDeprecatedOnce(name: DeprecatedName): void {
  if (warned.has(name.old)) return;
  warned.add(name.old);
  process.emitWarning(`${name.old} is deprecated: set ${name.new} instead (${name.new} wins when both are set)`, {
    type: "DeprecationWarning",
    code: "A2A_LEDGER_DEPRECATED_SETTING",
  });
}

export interface EnvReader {
  /** Problems found so far, one line each. */
  readonly problems: string[];
  /** Old names read so far (each once), for a new name that was given under its old one. */
  readonly deprecated: DeprecatedName[];
  /** The trimmed value, undefined when unset or empty. */
  text(name: string): string | undefined;
  /** A decimal integer within [min, max]; the fallback when unset (or invalid, with a problem). */
  int(name: string, fallback: number, min: number, max: number): number;
  /** `true` or `false`; the fallback when unset (or invalid, with a problem). */
  bool(name: string, fallback?: boolean): boolean;
  /**
   * A duration in milliseconds within [minMs, maxMs], written as an integer with a unit — `ms`, `s`, `m`,
   * `h` or `d` (`7d`, `90s`) — or as bare milliseconds; the fallback when unset (or invalid, with a problem).
   */
  duration(name: string, fallbackMs: number, minMs: number, maxMs: number): number;
}

const durationUnits: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `7d`, `90s`, `1500ms` or `1500` as milliseconds; undefined for anything else. */
export function parseDuration(text: string): number | undefined {
  const m = /^(\d+)(ms|s|m|h|d)?$/.exec(text);
  if (m === null) return undefined;
  const ms = Number(m[1]) * (durationUnits[m[2] ?? "ms"] as number);
  return Number.isSafeInteger(ms) ? ms : undefined;
}

export function envReader(env: NodeJS.ProcessEnv, options: EnvReaderOptions = {}): EnvReader {
  const problems: string[] = [];
  const deprecated: DeprecatedName[] = [];
  const onDeprecated = options.onDeprecated ?? warnDeprecatedOnce;
  const raw = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === undefined || value === "" ? undefined : value;
  };
  const text = (name: string): string | undefined => {
    const value = raw(name);
    const renamed = options.renamed;
    if (renamed === undefined || !name.startsWith(renamed.to)) return value;
    const old = renamed.from + name.slice(renamed.to.length);
    const oldValue = raw(old);
    if (oldValue !== undefined && !deprecated.some((d) => d.old === old)) {
      const entry = { old, new: name };
      deprecated.push(entry);
      onDeprecated(entry);
    }
    return value ?? oldValue;
  };
  return {
    problems,
    deprecated,
    text,
    int(name, fallback, min, max) {
      const raw = text(name);
      if (raw === undefined) return fallback;
      const value = Number(raw);
      if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < min || value > max) {
        problems.push(`${name}=${JSON.stringify(raw)} must be an integer from ${min} to ${max}`);
        return fallback;
      }
      return value;
    },
    bool(name, fallback = false) {
      const raw = text(name);
      if (raw === undefined) return fallback;
      if (raw !== "true" && raw !== "false") {
        problems.push(`${name}=${JSON.stringify(raw)} must be true or false`);
        return fallback;
      }
      return raw === "true";
    },
    duration(name, fallbackMs, minMs, maxMs) {
      const raw = text(name);
      if (raw === undefined) return fallbackMs;
      const ms = parseDuration(raw);
      if (ms === undefined || ms < minMs || ms > maxMs) {
        problems.push(
          `${name}=${JSON.stringify(raw)} must be a duration from ${minMs} ms to ${maxMs} ms, like 7d, 12h, 30m, 90s or 500ms`,
        );
        return fallbackMs;
      }
      return ms;
    },
  };
}
