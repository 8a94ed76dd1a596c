/**
 * The one error a process refuses to start with when its configuration is wrong (environment variables,
 * or a file they name): every problem, one line each, under the service's stable code
 * (`<SERVICE>_CONFIG_INVALID`, in its catalogue). A `main` prints the message and exits 2.
 */
export class ConfigError extends Error {
  override name = "ConfigError";
  constructor(
    /** Who refuses: `ingest`, `proxy`, … */
    readonly service: string,
    readonly code: string,
    readonly problems: readonly string[],
  ) {
    super(`Invalid ${service} configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  }
}
