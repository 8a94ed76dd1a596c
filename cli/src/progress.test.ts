import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { progressBar } from "./progress.ts";

function terminal(): { stream: Writable & { isTTY: boolean; columns: number }; text: () => string } {
  let out = "";
  const stream = Object.assign(
    new Writable({
      write(chunk, _enc, cb) {
        out += String(chunk);
        cb();
      },
    }),
    { isTTY: true, columns: 160, cursorTo: () => true, clearLine: () => true, moveCursor: () => true },
  );
  return { stream, text: () => out };
}

const io = { stdout: () => undefined, stderr: () => undefined, cwd: "." };

describe("the progress bar", () => {
  it("draws bytes done, events/s and the ETA on a terminal", () => {
    const t = terminal();
    const bar = progressBar({ ...io, progress: t.stream }, "replay", "bytes", 0);
    bar.update(5_000_000, 20_000_000, 50_000);
    bar.update(10_000_000, 20_000_000, 100_000);
    bar.stop();
    expect(t.text()).toMatch(/replay \[.*\] \d+% \| \d+\.\d MB\/20\.0 MB \| [\d,]+ events \| [\d,]+ events\/s \| ETA /);
  });

  it("draws nothing when stderr is not a terminal", () => {
    const bar = progressBar(io, "replay", "records", 0);
    expect(() => {
      bar.update(1, 2, 1);
      bar.stop();
    }).not.toThrow();
  });

  it("waits before drawing, so a short run leaves the terminal clean", () => {
    const t = terminal();
    const bar = progressBar({ ...io, progress: t.stream }, "replay", "records", 60_000);
    bar.update(1, 2, 1);
    bar.stop();
    expect(t.text()).toBe("");
  });
});
