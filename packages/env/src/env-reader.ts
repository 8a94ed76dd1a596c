/**
 * Reading a service's configuration from environment variables, the same way in every service: values
 * trimmed (empty means unset), every bad value collected as a problem that names the variable, so a
 * service refuses to start with all of its configuration's problems at once.
 */
export interface EnvReader {
  /** Problems found so far, one line each. */
  readonly problems: string[];
  /** The trimmed value, undefined when unset or empty. */
  text(name: string): string | undefined;
  /** A decimal integer within [min, max]; the fallback when unset (or invalid, with a problem). */
  int(name: string, fallback: number, min: number, max: number): number;
  /** `true` or `false`; the fallback when unset (or invalid, with a problem). */
  bool(name: string, fallback?: boolean): boolean;
}

export function envReader(env: NodeJS.ProcessEnv): EnvReader {
  const problems: string[] = [];
  const text = (name: string): string | undefined => {
    const raw = env[name]?.trim();
    return raw === undefined || raw === "" ? undefined : raw;
  };
  return {
    problems,
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
  };
}
