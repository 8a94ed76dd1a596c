import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { chaosOverIpc, serveChaos } from "./chaos-channel.ts";

const child = fileURLToPath(new URL("../test/fixtures/asks-for-chaos.ts", import.meta.url));

describe("chaos over the IPC channel", () => {
  it("carries the orchestrator's requests to the supervisor and its answers back, failures included", async () => {
    const proc = fork(child, [], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
    const done: string[] = [];
    serveChaos(proc, {
      restartW1: async () => void done.push("restart"),
      reloadW1: async (mode) => {
        done.push(`reload ${mode}`);
        throw new Error("W1 is not running");
      },
    });
    const outcome = await new Promise<unknown>((resolve) =>
      proc.on("message", (m: { type?: string; outcome?: unknown }) => m.type === "outcome" && resolve(m.outcome)),
    );
    expect(done).toEqual(["restart", "reload text/plain"]);
    expect(outcome).toEqual(["restarted", "reload failed: reload-w1 failed: W1 is not running"]);
  }, 30_000);

  it("refuses to run without a supervisor: there is no IPC channel", () => {
    expect(() =>
      chaosOverIpc({ send: undefined, on: process.on.bind(process), off: process.off.bind(process) } as never),
    ).toThrow(/no IPC channel.*a2a-ledger up --demo/);
  });
});
