/**
 * `a2a-ledger projector rebuild`: rebuilds the projector's views from offset 0 into fresh tables and
 * swaps them in when caught up (queries keep working meanwhile). `a2a-ledger projector prune --before
 * <ISO date>`: deletes from the views every correlation whose last event is earlier than that date
 * (the topics keep them as long as their retention does; a rebuild brings them back). Both run the projector's own compiled entry point
 * (services/projector/dist, `npm run build`) as a child process with this environment (KAFKA_BROKERS, SCHEMA_REGISTRY_URL, PROJECTOR_*,
 * A2A_LEDGER_TOPIC_SUFFIX …) and exits with its exit code.
 */
import { BuildMissingError } from "../build-output.ts";
import type { Command } from "../command.ts";
import { exitCodes, UsageError } from "../io.ts";
import { spawnProjector } from "../projector-process.ts";

const usage =
  "usage: a2a-ledger projector rebuild\n       a2a-ledger projector prune --before <ISO date: 2026-01-31 (midnight UTC) or 2026-01-31T12:00:00Z>";

export const command: Command = {
  name: "projector",
  summary:
    "projector maintenance: `rebuild` the views from offset 0 into fresh tables, swapped in when caught up; `prune --before <date>` the correlations whose last event is older",
  usage,
  async run(args, io) {
    const rebuilding = args.length === 1 && args[0] === "rebuild";
    const pruning = args.length === 3 && args[0] === "prune" && args[1] === "--before" && args[2] !== "";
    if (!rebuilding && !pruning) throw new UsageError(usage);
    let child;
    try {
      // The projector checks the date (exit 2 with the reason, which this command passes on as a usage error).
      child = spawnProjector(args, process.env);
    } catch (e) {
      if (!(e instanceof BuildMissingError)) throw e;
      io.stderr(`a2a-ledger projector: ${e.message}\n`);
      return exitCodes.checkFailed;
    }
    child.stdout?.on("data", (chunk: Buffer) => io.stdout(chunk.toString()));
    child.stderr?.on("data", (chunk: Buffer) => io.stderr(chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)));
    // 3: Kafka refused the projector (credentials, certificate, ACL) or is out of reach, as the other commands say it.
    return code === 0
      ? exitCodes.ok
      : code === 2
        ? exitCodes.usage
        : code === 3
          ? exitCodes.unavailable
          : exitCodes.checkFailed;
  },
};
