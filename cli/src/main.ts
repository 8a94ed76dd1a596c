/**
 * a2a-ledger: dispatches `a2a-ledger <command> …` to src/commands/<command>.ts.
 * To add a command, add a module exporting `command: Command` and one line to `commands` below.
 */
import type { Command } from "./command.ts";
import { exitCodes, processIo, UnavailableError, UsageError, type Io } from "./io.ts";
import { kafkaRetryBudgetFromEnv, setKafkaRetries } from "./kafka/kafka-retries.ts";

const commands: Record<string, () => Promise<{ command: Command }>> = {
  acls: () => import("./commands/acls.ts"),
  projector: () => import("./commands/projector.ts"),
  replay: () => import("./commands/replay.ts"),
  policy: () => import("./commands/policy.ts"),
  resolve: () => import("./commands/resolve.ts"),
  export: () => import("./commands/export.ts"),
  up: () => import("./commands/up.ts"),
};

async function help(io: Io): Promise<void> {
  const lines = ["usage: a2a-ledger <command> [options]", "", "commands:"];
  for (const load of Object.values(commands)) {
    const { command } = await load();
    lines.push(`  ${command.name.padEnd(10)} ${command.summary}`);
  }
  io.stdout(`${lines.join("\n")}\n`);
}

export async function main(argv: string[], io: Io = processIo): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    await help(io);
    return name === undefined ? exitCodes.usage : exitCodes.ok;
  }
  const load = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (load === undefined) {
    io.stderr(`a2a-ledger: unknown command ${JSON.stringify(name)}; try a2a-ledger help\n`);
    return exitCodes.usage;
  }
  const { command } = await load();
  try {
    // A retriable Kafka error is retried within A2A_LEDGER_CLI_KAFKA_RETRY_MS, each retry said on this command's stderr.
    setKafkaRetries({
      budgetMs: kafkaRetryBudgetFromEnv(process.env),
      report: (line) => io.stderr(`a2a-ledger ${command.name}: ${line}`),
    });
    return await command.run(args, io);
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr(`a2a-ledger ${command.name}: ${e.message}\n`);
      return exitCodes.usage;
    }
    if (e instanceof UnavailableError) {
      io.stderr(`a2a-ledger ${command.name}: ${e.message}\n`);
      return exitCodes.unavailable;
    }
    throw e;
  }
}
