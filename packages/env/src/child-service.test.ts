import { describe, expect, it } from "vitest";
import { killHard, readyOnMessage, spawnService, stopChild } from "./child-service.ts";

/** A node child running `script`. */
const node = (name: string, script: string, startTimeoutMs?: number) =>
  spawnService(name, process.execPath, ["-e", script], { ready: readyOnMessage("listening"), startTimeoutMs });

const log = (entry: object) => `console.log(${JSON.stringify(JSON.stringify(entry))});`;
const stayAlive = "setInterval(() => {}, 1000);";

describe("a service as a child process", () => {
  it("is ready at the log line that says so, after other output and lines that are not JSON", async () => {
    const service = await node(
      "svc",
      `console.log("booting"); ${log({ msg: "starting" })} ${log({ msg: "listening", url: "http://127.0.0.1:1" })} ${stayAlive}`,
    );
    expect(service.readyEntry).toEqual({ msg: "listening", url: "http://127.0.0.1:1" });
    expect(service.output()).toContain("booting");
    await stopChild(service.child);
    expect(service.child.signalCode).toBe("SIGTERM");
  });

  it("rejects with the child's output when it exits before it is ready", async () => {
    await expect(node("svc", `console.error("bad config"); process.exit(2);`)).rejects.toThrow(
      /svc exited \(2\) before it was ready:\nbad config/,
    );
  });

  it("kills a child that never says it is ready and rejects", async () => {
    await expect(node("svc", stayAlive, 300)).rejects.toThrow(/svc did not start within 300 ms/);
  });

  it("stops a child that ignores SIGTERM with SIGKILL after the grace period", async () => {
    const service = await node("svc", `process.on("SIGTERM", () => {}); ${log({ msg: "listening" })} ${stayAlive}`);
    await stopChild(service.child, 200);
    expect(service.child.signalCode).toBe("SIGKILL");
  });

  it("kills hard, and stopping an exited child resolves at once", async () => {
    const service = await node("svc", `${log({ msg: "listening" })} ${stayAlive}`);
    await killHard(service.child);
    expect(service.child.signalCode).toBe("SIGKILL");
    await stopChild(service.child);
    await killHard(service.child);
  });
});
