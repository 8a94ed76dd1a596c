/**
 * A record of the commands topic → a command the dispatcher can execute, or a PoisonCommandError saying
 * why it cannot. A registry that cannot be reached is not poison: the error is rethrown and the record
 * is read again.
 */
import type { KafkaMessage } from "@a2a-ledger/kafka";
import type { Decision } from "@a2a-ledger/schemas";
import { classifyDecodeFailure, type Serde } from "@a2a-ledger/schemas/serde";
import { PoisonCommandError } from "./errors.ts";

export type RedispatchCommand = Extract<Decision, { type: "RedispatchCommanded" }>;
export type ProbeCommand = Extract<Decision, { type: "ProbeRequested" }>;
export type Command = RedispatchCommand | ProbeCommand;

const visibleId = /^[\x21-\x7e]{1,200}$/;
/** Decision and correlation ids travel into headers, file names and logs: no control characters. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what an id must not hold
const printable = /^[^\x00-\x1f\x7f]{1,1000}$/;

function check(command: Command): void {
  const bad = (what: string) => {
    throw new PoisonCommandError(
      "DISPATCHER_INVALID_COMMAND",
      `${command.type} ${JSON.stringify(command.decisionId).slice(0, 200)}: ${what}`,
    );
  };
  if (!printable.test(command.decisionId)) bad("decisionId is empty or has control characters");
  if (!visibleId.test(command.correlationId)) bad("correlationId must be 1–200 visible ASCII characters");
  if (command.type === "RedispatchCommanded") {
    if (!visibleId.test(command.targetWorkerId)) bad("targetWorkerId must be 1–200 visible ASCII characters");
    if (command.attempt < 1) bad(`attempt ${command.attempt} is below 1`);
    if (command.skillId !== null && !visibleId.test(command.skillId))
      bad("skillId must be 1–200 visible ASCII characters");
  } else if (command.workerId === null || !visibleId.test(command.workerId))
    bad("workerId must be 1–200 visible ASCII characters");
}

export async function decodeCommand(serde: Serde, message: Pick<KafkaMessage, "key" | "value">): Promise<Command> {
  if (message.value === null || message.value.length === 0)
    throw new PoisonCommandError("DISPATCHER_UNDECODABLE", "the record has no value");
  let decoded;
  try {
    decoded = await serde.decode(message.value);
  } catch (error) {
    const failure = classifyDecodeFailure(error);
    if (failure === undefined) throw error;
    throw new PoisonCommandError(
      failure.kind === "undecodable" ? "DISPATCHER_UNDECODABLE" : "DISPATCHER_UNKNOWN_SCHEMA",
      failure.message,
    );
  }
  const record = decoded.record;
  if (record.type !== "RedispatchCommanded" && record.type !== "ProbeRequested")
    throw new PoisonCommandError("DISPATCHER_NOT_A_COMMAND", `a ${decoded.typeName} record`);
  const key = message.key?.toString("utf8") ?? null;
  if (key !== record.correlationId)
    throw new PoisonCommandError(
      "DISPATCHER_KEY_MISMATCH",
      `key ${JSON.stringify(key)}, correlationId ${JSON.stringify(record.correlationId)}`,
    );
  check(record);
  return record;
}
