/** The one logger of the mesh workers: pino, JSON lines on stdout. */
import { pino, type Logger } from "pino";

export type { Logger };

export function createLogger(name: string, level: string = process.env.MESH_LOG_LEVEL ?? "info"): Logger {
  return pino({ name, level });
}
