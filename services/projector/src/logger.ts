/** The projector's logger: the configuration every service shares (`@a2a-ledger/logging`), at the configured level. */
import { createLogger as sharedLogger, type Logger } from "@a2a-ledger/logging";
import type { LogLevel } from "./config.ts";

export type { Logger };

export function createLogger(level: LogLevel, name = "projector"): Logger {
  return sharedLogger(name, level);
}
