/**
 * The progress bar of a long replay or export (cli-progress): bytes or records done, events per
 * second and ETA, drawn on stderr only when it is a terminal (Io.progress), and only once the work has
 * run for a moment, so short runs and pipes stay clean.
 */
import cliProgress from "cli-progress";
import type { Io } from "./io.ts";

export interface Progress {
  update(done: number, total: number, events: number): void;
  stop(): void;
}

const none: Progress = { update: () => undefined, stop: () => undefined };

export function progressBar(io: Io, what: string, unit: "bytes" | "records", delayMs = 250): Progress {
  const stream = io.progress;
  if (stream === undefined) return none;
  const started = Date.now();
  let bar: cliProgress.SingleBar | undefined;
  const size = (x: number) => (unit === "bytes" ? `${(x / 1e6).toFixed(1)} MB` : x.toLocaleString("en-US"));
  return {
    update(done, total, events) {
      const elapsed = (Date.now() - started) / 1000;
      const payload = {
        events: events.toLocaleString("en-US"),
        eps: elapsed > 0 ? Math.round(events / elapsed).toLocaleString("en-US") : "–",
        doneText: size(done),
        totalText: size(total),
      };
      if (bar === undefined) {
        if (Date.now() - started < delayMs) return;
        bar = new cliProgress.SingleBar(
          {
            stream,
            format: `${what} [{bar}] {percentage}% | {doneText}/{totalText} | {events} events | {eps} events/s | ETA {eta_formatted}`,
            hideCursor: true,
            clearOnComplete: true,
            etaBuffer: 50,
            fps: 10,
          },
          cliProgress.Presets.shades_classic,
        );
        bar.start(Math.max(total, 1), done, payload);
      } else {
        bar.setTotal(Math.max(total, 1));
        bar.update(done, payload);
      }
    },
    stop() {
      bar?.stop();
    },
  };
}
