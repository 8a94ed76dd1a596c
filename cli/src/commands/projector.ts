/**
 * `a2a-ledger projector rebuild`: rebuilds the projector's views from offset 0 into fresh tables and
 * swaps them in when caught up (queries keep working meanwhile). Runs the projector's own compiled entry point
 * (services/projector/dist, `npm run build`) as a child process with this environment (KAFKA_BROKERS, SCHEMA_REGISTRY_URL, PROJECTOR_*,
 * A2A_LEDGER_TOPIC_SUFFIX …) and exits with its exit code.
 */
import { BuildMissingError } from "../build-output.ts";
import type { Command } from "../command.ts";
import { exitCodes, UsageError } from "../io.ts";
import { spawnProjector } from "../projector-process.ts";

const usage = "usage: a2a-ledger projector rebuild";

export const command: Command = {
  name: "projector",
  summary: "projector maintenance: `rebuild` the views from offset 0 into fresh tables, swapped in when caught up",
  usage,
  async run(args, io) {
    if (args.length !== 1 || args[0] !== "rebuild") throw new UsageError(usage);
    let child;
    try {
      child = spawnProjector(["rebuild"], process.env);
    } catch (e) {
      if (!(e instanceof BuildMissingError)) throw e;
      io.stderr(`a2a-ledger projector: ${e.message}\n`);
      return exitCodes.checkFailed;
    }
    child.stdout?.on("data", (chunk: Buffer) => io.stdout(chunk.toString()));
    child.stderr?.on("data", (chunk: Buffer) => io.stderr(chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)));
    // 3: Kafka refused the projector (credentials, certificate, ACL) or is out of reach, as the other commands say it.
    return code === 0 ? exitCodes.ok : code === 2 ? exitCodes.usage : code === 3 ? exitCodes.unavailable : exitCodes.checkFailed;
  },
};
