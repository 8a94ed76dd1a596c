/** A command's options with node's parseArgs (strict, no positionals); a bad option is a usage error. */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { UsageError } from "./io.ts";

type Options = NonNullable<ParseArgsConfig["options"]>;

type Parsed<O extends Options> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O; strict: true; allowPositionals: false }>
>["values"];

export function parseOptions<const O extends Options>(args: string[], options: O, usage: string): Parsed<O> {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false }).values;
  } catch (e) {
    throw new UsageError(`${(e as Error).message}\n${usage}`);
  }
}
