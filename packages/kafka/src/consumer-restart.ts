/**
 * A consumer that kafkajs gave up on, run again. kafkajs restarts a crashed consumer only after an
 * error it deems retriable. After any other the consumer stays stopped while the process lives on. One
 * such error is an offset commit answered UNKNOWN_MEMBER_ID: a broker stalled past the session timeout,
 * and the group's new coordinator had already moved on (kafkajs issue #1568). `ConsumerRestart` runs the
 * consumer again from its committed offsets, with a growing pause between tries. It does not when Kafka
 * refused the service (credentials, certificate, ACL: no restart cures that) or when its owner is stopping.
 */
export interface ConsumerRestartOptions {
  /** The consumer that crashed: disconnected before a new one runs. */
  crashed: () => { disconnect(): Promise<void> } | undefined;
  /** Builds, connects, subscribes and runs a new consumer. */
  run: () => Promise<void>;
  /** Whether the error is a refusal (no restart), or the owner is stopping. */
  giveUp: (error: unknown) => boolean;
  /** What the log lines call the consumer ("the command consumer"). */
  name: string;
  log: { warn(fields: object, message: string): void; error(fields: object, message: string): void };
  /** Counts each try. */
  restarts: { inc(): void };
  /** The pause before try n (1, 2, …): 1 s, doubling up to 30 s unless given. */
  delayMs?: (attempt: number) => number;
}

export const restartDelayMs = (attempt: number): number => Math.min(30_000, 1_000 * 2 ** Math.max(0, attempt - 1));

export class ConsumerRestart {
  private timer: NodeJS.Timeout | undefined;
  private attempt = 0;
  private cancelled = false;

  constructor(private readonly options: ConsumerRestartOptions) {}

  /** For kafkajs's CRASH event: when kafkajs will not restart the consumer itself, schedules a new one; true if scheduled. */
  onCrash(payload: { error: unknown; restart: boolean }): boolean {
    if (payload.restart || this.timer !== undefined || this.options.giveUp(payload.error)) return false;
    this.schedule(payload.error);
    return true;
  }

  /** The consumer runs again (it joined its group): the next crash starts from the shortest pause. */
  settled(): void {
    if (this.timer === undefined) this.attempt = 0;
  }

  /** No further tries (the owner stops). */
  cancel(): void {
    this.cancelled = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async rerun(): Promise<void> {
    await this.options
      .crashed()
      ?.disconnect()
      .catch(() => undefined);
    if (!this.cancelled) await this.options.run();
  }

  private schedule(error: unknown): void {
    if (this.cancelled) return;
    this.attempt += 1;
    const attempt = this.attempt;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        if (this.cancelled || this.options.giveUp(error)) return;
        const { log, name } = this.options;
        this.options.restarts.inc();
        log.warn({ err: error, attempt }, `running ${name} again`);
        this.rerun().catch((failure: unknown) => {
          log.error({ err: failure, attempt }, `${name} could not run again; trying later`);
          if (this.timer === undefined && !this.options.giveUp(failure)) this.schedule(failure);
        });
      },
      (this.options.delayMs ?? restartDelayMs)(attempt),
    );
    this.timer.unref();
  }
}
