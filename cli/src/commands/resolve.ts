/**
 * `a2a-ledger resolve --correlation ID (--fail | --redispatch-to WORKER | --restart [--on WORKER]) --reason TEXT
 * [--operator NAME]`: an operator's way out for a blocked or indeterminate correlation, recorded through
 * ingest as an `OperatorResolved` observation. The rules (default/4, packages/core/src/rules/
 * operator-resolution.ts) carry it out — a TaskFailed, or a RedispatchCommanded the dispatcher executes —
 * so replay reproduces it; the ingest token's principal names who did it.
 */
import { userInfo } from "node:os";
import {
  IngestClient,
  IngestRejectedError,
  IngestUnavailableError,
  type Resolution,
  resolutionObservation,
} from "@a2a-ledger/ingest-client";
import type { Command } from "../command.ts";
import { exitCodes, UnavailableError, UsageError } from "../io.ts";
import { parseOptions } from "../parse-options.ts";

/** Where ingest listens unless A2A_LEDGER_INGEST_URL says otherwise (ingest's own default port). */
export const defaultIngestUrl = "http://127.0.0.1:18090";
/** A reason longer than this is refused here, before it reaches a decision's text. */
export const maxReasonLength = 1000;

const usage = `usage: a2a-ledger resolve --correlation ID (--fail | --redispatch-to WORKER | --restart [--on WORKER])
                          --reason TEXT [--operator NAME]

  Resolves a blocked or indeterminate correlation (the projector's queue): records an OperatorResolved
  observation through ingest, and the rules (default/4) carry it out, so replay reproduces it.
    --fail            the lost task fails (TaskFailed, its reason naming you and --reason)
    --redispatch-to   re-dispatch it to this worker, resuming its interrupted state, whatever the table's
                      verdict (the worker's card must be known)
    --restart         restart it from scratch on the first worker that verifies COMPLETED, or --on WORKER
                      (which must verify it)
    --reason          why, in your words (required; at most ${maxReasonLength} characters)
    --operator        the name written as observer operator:NAME (default: the login name)
  A resolution the rules cannot carry out keeps the correlation blocked, saying why; one for a
  correlation that awaits no way out changes nothing. The reconciler decides either within its batch.
  Environment: A2A_LEDGER_INGEST_URL (default ${defaultIngestUrl}); A2A_LEDGER_INGEST_TOKEN, a token whose
  observers admit operator:NAME (ingest's README, "Token scope").`;

const namePattern = /^[A-Za-z0-9._@-]{1,128}$/;

/** The resolution the options ask for; a usage error when they ask for none, several, or say it badly. */
export function resolutionOf(o: {
  correlation?: string;
  fail?: boolean;
  "redispatch-to"?: string;
  restart?: boolean;
  on?: string;
  reason?: string;
  operator?: string;
}): Resolution {
  const correlationId = o.correlation?.trim() ?? "";
  if (correlationId === "") throw new UsageError(`resolve needs --correlation ID\n${usage}`);
  const actions = [o.fail === true, o["redispatch-to"] !== undefined, o.restart === true].filter(Boolean).length;
  if (actions !== 1)
    throw new UsageError(`resolve needs exactly one of --fail, --redispatch-to WORKER, --restart\n${usage}`);
  if (o.on !== undefined && o.restart !== true) throw new UsageError(`--on names the worker of a --restart\n${usage}`);
  const reason = o.reason?.trim() ?? "";
  if (reason === "") throw new UsageError(`resolve needs --reason TEXT: the decision carries it\n${usage}`);
  if (reason.length > maxReasonLength)
    throw new UsageError(`--reason is ${reason.length} characters; at most ${maxReasonLength}`);
  const name = o.operator ?? userInfo().username;
  if (!namePattern.test(name))
    throw new UsageError(
      `--operator ${JSON.stringify(name.slice(0, 200))} is not a name: 1 to 128 letters, digits, . _ @ -`,
    );
  const worker = o["redispatch-to"] ?? o.on ?? null;
  if (worker !== null && worker.trim() === "") throw new UsageError("a worker id is not empty");
  return {
    correlationId,
    action: o.fail === true ? "FAIL" : o.restart === true ? "RESTART" : "REDISPATCH",
    workerId: worker,
    reason,
    observer: `operator:${name}`,
  };
}

const what = (r: Resolution): string =>
  r.action === "FAIL"
    ? "fail its lost task"
    : r.action === "REDISPATCH"
      ? `re-dispatch it to ${r.workerId}`
      : `restart it from scratch${r.workerId === null ? "" : ` on ${r.workerId}`}`;

export const command: Command = {
  name: "resolve",
  summary: "resolve a blocked or indeterminate correlation: fail it, re-dispatch it, or restart it",
  usage,
  async run(args, io) {
    if (args[0] === "--help" || args[0] === "-h") {
      io.stdout(`${usage}\n`);
      return exitCodes.ok;
    }
    const o = parseOptions(
      args,
      {
        correlation: { type: "string" },
        fail: { type: "boolean" },
        "redispatch-to": { type: "string" },
        restart: { type: "boolean" },
        on: { type: "string" },
        reason: { type: "string" },
        operator: { type: "string" },
      },
      usage,
    );
    const resolution = resolutionOf(o);
    const baseUrl = process.env["A2A_LEDGER_INGEST_URL"] || defaultIngestUrl;
    const token = process.env["A2A_LEDGER_INGEST_TOKEN"] || undefined;
    const event = resolutionObservation(resolution, Date.now());
    const client = new IngestClient({ baseUrl, ...(token === undefined ? {} : { token }), maxRetries: 4 });
    try {
      await client.send([event]);
    } catch (e) {
      if (e instanceof IngestRejectedError) {
        const details = e.details.map((d) => `\n  ${d.path}: ${d.message}`).join("");
        io.stderr(`a2a-ledger resolve: ingest refused the resolution: ${e.message}${details}\n`);
        return e.status === 401 || e.status === 403 || e.status === 400 ? exitCodes.usage : exitCodes.checkFailed;
      }
      if (e instanceof IngestUnavailableError)
        throw new UnavailableError(`ingest at ${baseUrl} did not take the resolution: ${e.message}`);
      throw e;
    }
    io.stdout(
      `recorded ${event.eventId}: ${resolution.observer} asks to ${what(resolution)} for correlation ${resolution.correlationId} (${resolution.reason})\n` +
        "the reconciler carries it out if the correlation still awaits a way out (default/4); its lineage shows the outcome\n",
    );
    return exitCodes.ok;
  },
};
