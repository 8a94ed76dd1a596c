/** W2 through the real @a2a-js/sdk client: completion only, in text/plain, whatever the script asks. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientFor, userMessage } from "../src/client.ts";
import { startJsAgent, type RunningJsAgent } from "../src/js-agent.ts";
import { artifactMediaTypes, asTask, stateOf, TaskState } from "./a2a.ts";

let w2: RunningJsAgent;
beforeAll(async () => {
  w2 = await startJsAgent({ kind: "w2" });
});
afterAll(async () => {
  await w2?.close();
});

describe("W2", () => {
  it("advertises only submitted, working and completed, an ephemeral store and text/plain", async () => {
    const card = (await (
      await fetch(`${w2.url}/.well-known/agent-card.json`, { headers: { "A2A-Version": "1.0" } })
    ).json()) as Record<string, any>;
    const lifecycle = card.capabilities.extensions.find(
      (e: { uri: string }) => e.uri === "urn:a2a-ledger:ext:task-lifecycle:v1",
    );
    expect(lifecycle.params).toEqual({
      states: ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED"],
      taskStore: "ephemeral",
    });
    expect(card.defaultOutputModes).toEqual(["text/plain"]);
    expect(card.skills[0].outputModes).toEqual(["text/plain"]);
  });

  it("completes a plain message with a text/plain artifact", async () => {
    const client = await clientFor(w2.url, "HTTP+JSON");
    const task = asTask(
      await client.sendMessage({
        tenant: "",
        message: userMessage("what is a ledger?"),
        configuration: undefined,
        metadata: undefined,
      }),
    );
    expect(stateOf(task)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(artifactMediaTypes(task)).toEqual(["text/plain"]);
  });

  it("never stops in INPUT_REQUIRED: a message asking for input completes directly", async () => {
    const client = await clientFor(w2.url);
    const events = [];
    for await (const event of client.sendMessageStream({
      tenant: "",
      message: userMessage("need-input draft"),
      configuration: undefined,
      metadata: undefined,
    }))
      events.push(event);
    const states = events.flatMap((e) =>
      e.payload?.$case === "statusUpdate"
        ? [e.payload.value.status?.state]
        : e.payload?.$case === "task"
          ? [e.payload.value.status?.state]
          : [],
    );
    expect(states).toEqual([
      TaskState.TASK_STATE_SUBMITTED,
      TaskState.TASK_STATE_WORKING,
      TaskState.TASK_STATE_COMPLETED,
    ]);
  });
});
