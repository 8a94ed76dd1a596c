/** The service's one logger: pino, JSON lines on stdout, at the configured level. */
import pino, { type Logger } from "pino";
import type { LogLevel } from "./config.ts";

export type { Logger };

export function createLogger(level: LogLevel, name = "projector"): Logger {
  return pino({ name, level, base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime });
}
