/** The proxy's one logger: pino, JSON lines on stdout. */
import { pino, type Logger, type LevelWithSilent } from "pino";

export type { Logger };

export function createLogger(level: LevelWithSilent, bindings: Record<string, string> = {}): Logger {
  return pino({ name: "a2a-proxy", level, redact: { paths: ["headers.authorization", "headers.cookie"], censor: "[redacted]" } }).child(bindings);
}
