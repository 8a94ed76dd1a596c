/**
 * `npm run retry -w @a2a-ledger/dispatcher -- <decisionId>… | --all`: the operator's retry path. Marks
 * journal rows to be tried again; the running dispatcher (or the next one to start) carries them out
 * within A2A_LEDGER_DISPATCHER_RETRY_POLL_MS:
 *
 * - a command `failed` with DISPATCHER_RECORDING_REJECTED (ingest refused its observations: a token,
 *   an ACL, a schema fixed since) has its kept observations sent again, with the same event ids;
 * - a command `blocked` with DISPATCHER_WORKER_NOT_CONFIGURED or DISPATCHER_SKILL_NOT_CONFIGURED
 *   (nothing was sent) is carried out again against the workers file the dispatcher read at its start:
 *   fix the file, restart the dispatcher, retry (in either order).
 *
 * Anything else is refused with its reason (a re-dispatch that may have reached a worker is never sent
 * twice). `--all` retries every row that qualifies. The journal is the one the dispatcher uses
 * (A2A_LEDGER_DISPATCHER_JOURNAL_PATH, else A2A_LEDGER_DATA_DIR; `--journal PATH` overrides). Exit 0
 * when every named row was marked, 1 when one was refused, 2 on bad usage.
 */
import { existsSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { envReader } from "@a2a-ledger/env";
import { journalPathOf } from "./config.ts";
import { Journal } from "./journal.ts";

export interface RetryOutcome {
  lines: string[];
  exitCode: number;
}

const usage = "usage: npm run retry -w @a2a-ledger/dispatcher -- [--journal PATH] (<decisionId>… | --all)";

/** Marks the named rows (or, with `--all`, every row that qualifies) for a retry. */
export function retryCommands(journal: Journal, ids: readonly string[], all: boolean): RetryOutcome {
  const targets = all ? journal.retriable().map((r) => r.decisionId) : ids;
  if (all && targets.length === 0)
    return { lines: ["nothing to retry: no failed recording, no command blocked by the configuration"], exitCode: 0 };
  const lines: string[] = [];
  let refused = 0;
  for (const id of targets) {
    const result = journal.requestRetry(id);
    if (result.ok)
      lines.push(
        `${id}: ${result.status === "dispatched" ? "its observations will be sent again" : "will be carried out again"}`,
      );
    else {
      refused++;
      lines.push(`${id}: not retried: ${result.reason}`);
    }
  }
  return { lines, exitCode: refused > 0 ? 1 : 0 };
}

function main(argv: readonly string[]): number {
  const args = [...argv];
  let journalPath: string | undefined;
  const at = args.indexOf("--journal");
  if (at !== -1) {
    journalPath = args[at + 1];
    args.splice(at, 2);
  }
  const all = args.includes("--all");
  const ids = args.filter((a) => a !== "--all");
  if (
    (all && ids.length > 0) ||
    (!all && ids.length === 0) ||
    journalPath === "" ||
    ids.some((id) => id.startsWith("--"))
  ) {
    process.stderr.write(`${usage}\n`);
    return 2;
  }
  const { text } = envReader(process.env, { renamed: { from: "DISPATCHER_", to: "A2A_LEDGER_DISPATCHER_" } });
  const path = journalPath ?? journalPathOf(text);
  if (!existsSync(path)) {
    process.stderr.write(`no journal at ${path} (A2A_LEDGER_DISPATCHER_JOURNAL_PATH, or --journal PATH)\n`);
    return 2;
  }
  const journal = new Journal(path);
  try {
    const outcome = retryCommands(journal, ids, all);
    process.stdout.write(`${outcome.lines.join("\n")}\n`);
    return outcome.exitCode;
  } finally {
    journal.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) process.exitCode = main(process.argv.slice(2));
