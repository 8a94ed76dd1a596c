/**
 * The one logger configuration of the ledger's services: pino (what fastify logs with), JSON lines on
 * stdout with ISO times, the service's name on every line, the level from A2A_LEDGER_LOG_LEVEL (or the
 * service's own setting), credentials redacted. Fastify services pass `loggerOptions` as their
 * `logger`; the others call `createLogger`.
 */
import { type DestinationStream, pino, type Logger, type LoggerOptions } from "pino";

export type { Logger } from "pino";

export const logLevels = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof logLevels)[number];

export function isLogLevel(value: string): value is LogLevel {
  return (logLevels as readonly string[]).includes(value);
}

/** The level from the environment (A2A_LEDGER_LOG_LEVEL), else `fallback`. */
export function levelFromEnv(env: NodeJS.ProcessEnv = process.env, fallback: LogLevel = "info"): LogLevel {
  const raw = env.A2A_LEDGER_LOG_LEVEL?.trim();
  return raw !== undefined && isLogLevel(raw) ? raw : fallback;
}

export function loggerOptions(service: string, level: LogLevel = levelFromEnv()): LoggerOptions {
  return {
    level,
    base: { service, pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: {
      paths: ["req.headers.authorization", "req.headers.cookie", "headers.authorization", "token"],
      censor: "[redacted]",
    },
  };
}

/** A logger of `service`; its lines go to stdout, or to `destination` (a test keeping a service's log in memory). */
export function createLogger(service: string, level?: LogLevel, destination?: DestinationStream): Logger {
  return destination === undefined
    ? pino(loggerOptions(service, level))
    : pino(loggerOptions(service, level), destination);
}

/**
 * The last `max` lines of a log, kept in memory: `destination` for `createLogger`, `text()` for what it
 * holds. For a test that runs a service in-process quietly and prints its log only when the test fails.
 */
export function logTail(max = 1_000): { destination: DestinationStream; text(): string } {
  const lines: string[] = [];
  return {
    destination: {
      write(line: string) {
        lines.push(line);
        if (lines.length > max) lines.shift();
      },
    },
    text: () => lines.join(""),
  };
}
