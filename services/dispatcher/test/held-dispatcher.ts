/**
 * The dispatcher's process held at one point of a dispatch, for the crash tests:
 *
 *   node --import tsx services/dispatcher/test/held-dispatcher.ts --hold-at before-send|after-send|after-dispatched
 *
 * At that point the process logs `{"msg":"holding for a test","point",…}` and waits until it is killed, so a
 * test kills it exactly there. Everything else is the service's own process (src/service-process.ts).
 */
import { parseArgs } from "node:util";
import { createLogger } from "@a2a-ledger/logging";
import { dispatchPoints, type DispatchPoint } from "../src/dispatcher.ts";
import { runDispatcherProcess } from "../src/service-process.ts";

const { values } = parseArgs({ options: { "hold-at": { type: "string" } } });
const point = values["hold-at"];
if (!(dispatchPoints as readonly (string | undefined)[]).includes(point)) {
  process.stderr.write(`--hold-at must be one of ${dispatchPoints.join(", ")}\n`);
  process.exit(2);
}
const log = createLogger("dispatcher");

process.exitCode = await runDispatcherProcess({
  async reached(at: DispatchPoint, where) {
    if (at !== point) return;
    log.warn({ point: at, ...where }, "holding for a test");
    await new Promise<never>(() => undefined);
  },
});
setTimeout(() => process.exit(process.exitCode ?? 0), 1_000).unref();
