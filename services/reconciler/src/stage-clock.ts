/** How long each stage of a partition's work takes, and a warning when a partition's work stalls. */
import type { Logger } from "@a2a-ledger/logging";
import type { ReconcilerMetrics } from "./metrics.ts";

export class StageClocks {
  /** Work in progress per partition: when it began and the last stage it finished, for the stall warning. */
  private readonly working = new Map<number, { since: number; after: string; warned: number }>();

  constructor(
    private readonly metrics: ReconcilerMetrics,
    private readonly log: Logger,
  ) {}

  /** A stopwatch adding the time since its previous lap to the stage counter named at each lap. */
  stageClock(partition: number): (stage: string) => void {
    let last = performance.now();
    this.working.set(partition, { since: Date.now(), after: "start", warned: 0 });
    return (name) => {
      const now = performance.now();
      this.metrics.stageSeconds.inc({ stage: name }, (now - last) / 1_000);
      last = now;
      const work = this.working.get(partition);
      if (work !== undefined) work.after = name;
    };
  }

  /** The partition's work has finished. */
  settled(partition: number): void {
    this.working.delete(partition);
  }

  /** A partition whose work has not finished for a minute is logged (once a minute) with the stage it is past. */
  warnStalled(): void {
    const now = Date.now();
    for (const [partition, work] of this.working) {
      if (now - work.since < 60_000 || now - work.warned < 60_000) continue;
      work.warned = now;
      this.log.warn(
        { partition, seconds: Math.round((now - work.since) / 1000), after: work.after },
        "partition work stalled",
      );
    }
  }
}
