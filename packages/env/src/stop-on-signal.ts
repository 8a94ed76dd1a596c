/**
 * How a service process stops, the same way in every service: the first SIGTERM or SIGINT runs its
 * `stop` (close the server, drain, leave the consumer group); later signals are ignored while it runs.
 * The exit code is 0 once `stop` completed, 1 when it failed or outlived the grace period.
 */
export interface StopLog {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** The part of `process` this needs; a test passes an EventEmitter. */
export interface SignalSource {
  once(signal: NodeJS.Signals, listener: () => void): unknown;
}

export interface StopOnSignalOptions {
  stop: () => Promise<void>;
  /** How long `stop` may take before the process gives up on it and exits 1. */
  graceMs: number;
  log: StopLog;
  source?: SignalSource;
}

const signals: readonly NodeJS.Signals[] = ["SIGTERM", "SIGINT"];

/** Resolves with the exit code once a signal arrived and the stop ended (or its grace ran out). */
export function stopOnSignal({ stop, graceMs, log, source = process }: StopOnSignalOptions): Promise<number> {
  return new Promise<number>((resolve) => {
    let stopping = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (stopping) return;
      stopping = true;
      log.info({ signal, graceMs }, "stopping");
      const force = setTimeout(() => {
        log.error({ graceMs }, "stop outlived its grace period; exiting");
        resolve(1);
      }, graceMs);
      // Not unref'd: a stop that hangs on nothing must still end in exit 1, not in a silent exit.
      stop().then(
        () => {
          clearTimeout(force);
          resolve(0);
        },
        (err: unknown) => {
          clearTimeout(force);
          log.error({ err }, "stop failed");
          resolve(1);
        },
      );
    };
    for (const signal of signals) {
      // Both signals stay handled while stopping, so a second Ctrl-C does not kill a half-done stop.
      const again = () => {
        onSignal(signal);
        source.once(signal, again);
      };
      source.once(signal, again);
    }
  });
}
