import type { Io } from "./io.ts";

export interface Command {
  name: string;
  summary: string;
  usage: string;
  run(args: string[], io: Io): Promise<number>;
}
