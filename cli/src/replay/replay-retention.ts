/**
 * What a replay evicts by where no batch record says (a file, or what the reconciler has not read yet):
 * `--retention DURATION|off` and `--stale-after DURATION`, else the reconciler's own settings
 * (A2A_LEDGER_RECONCILER_RETENTION, A2A_LEDGER_RECONCILER_STALE_AFTER), else its defaults (7d, 30d).
 * A recorded batch evicts by the retention its record names, as the reconciler did.
 */
import { defaultRetention, type RetentionPolicy } from "@a2a-ledger/core";
import { parseDuration } from "@a2a-ledger/env";
import { UsageError } from "../io.ts";

function durationOf(what: string, text: string): number {
  const ms = parseDuration(text);
  if (ms === undefined || ms < 1)
    throw new UsageError(`${what} ${JSON.stringify(text)}: expected a duration like 7d, 12h, 30m, 90s or 500ms`);
  return ms;
}

export function retentionFromOptions(
  o: { retention?: string | undefined; "stale-after"?: string | undefined },
  env: NodeJS.ProcessEnv = process.env,
): RetentionPolicy | undefined {
  const retention = o.retention ?? env["A2A_LEDGER_RECONCILER_RETENTION"]?.trim() ?? "";
  const stale = o["stale-after"] ?? env["A2A_LEDGER_RECONCILER_STALE_AFTER"]?.trim() ?? "";
  if (retention === "off") {
    if (o["stale-after"] !== undefined) throw new UsageError("--stale-after needs retention: drop --retention off");
    return undefined;
  }
  return {
    finishedMs: retention === "" ? defaultRetention.finishedMs : durationOf("--retention", retention),
    staleMs: stale === "" ? defaultRetention.staleMs : durationOf("--stale-after", stale),
  };
}
