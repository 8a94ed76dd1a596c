"""The guard on a real a2a-sdk worker (DefaultRequestHandler, Starlette on uvicorn, InMemoryTaskStore),
called by the real a2a-sdk client, recording through the ledger's ingest API at INGEST_URL. Run by
test/guard.int.test.ts, which starts ingest on a throwaway topic and checks what reached Kafka; this script
checks what the executor and the client saw and prints one JSON line per case."""

import asyncio
import json
import os
import socket
import sys
import uuid

import uvicorn
from a2a.client import ClientConfig, create_client
from a2a.helpers import new_task_from_user_message, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types.a2a_pb2 import AgentCapabilities, AgentCard, AgentExtension, AgentInterface, AgentSkill, Message, Role, SendMessageRequest, TaskState
from google.protobuf import json_format
from starlette.applications import Starlette

from a2a_ledger_guard import EmissionRefusedError, IngestClient, WorkerGuard


def card_of(url: str, modes: list[str]) -> AgentCard:
    return AgentCard(
        name="Guarded-py", description="a guarded worker", version="1.0.0",
        supported_interfaces=[AgentInterface(url=f"{url}/a2a/jsonrpc", protocol_binding="JSONRPC", protocol_version="1.0")],
        capabilities=AgentCapabilities(streaming=True, extensions=[AgentExtension(uri="urn:a2a-ledger:ext:task-lifecycle:v1", params={"states": ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED"], "taskStore": "ephemeral"})]),
        default_input_modes=["text/plain"], default_output_modes=["text/plain"],
        skills=[AgentSkill(id="answer", name="Answer", description="", output_modes=modes)],
    )


def text_part(text: str, media_type: str):
    part = new_text_part(text)
    part.media_type = media_type
    return part


class TryingExecutor(AgentExecutor):
    """Tries the emissions its message names (state:NAME, artifact:TYPE, wait), catching refusals."""

    def __init__(self) -> None:
        self.caught: dict[str, list[str]] = {}
        self.gate = asyncio.Event()
        self.waiting = asyncio.Event()

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        message = context.message
        task = new_task_from_user_message(message)
        await event_queue.enqueue_event(task)
        caught = self.caught.setdefault(task.id, [])
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        await updater.start_work()
        for word in message.parts[0].text.split():
            try:
                if word == "wait":
                    self.waiting.set()
                    await self.gate.wait()
                elif word.startswith("state:"):
                    await updater.update_status(TaskState.Value(word[6:]))
                elif word.startswith("artifact:"):
                    await updater.add_artifact([text_part(f"in {word[9:]}", word[9:])], artifact_id=f"{task.id}-{word[9:]}", name="result")
            except EmissionRefusedError as e:
                caught.append(e.code)
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def message(text: str, correlation_id: str | None) -> Message:
    m = Message(message_id=str(uuid.uuid4()), role=Role.ROLE_USER, parts=[text_part(text, "text/plain")])
    if correlation_id is not None:
        m.metadata.update({"a2a-ledger.correlationId": correlation_id, "a2a-ledger.skillId": "answer"})
    return m


async def main() -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    state = {"card": card_of(url, ["text/plain"])}
    ingest = IngestClient(os.environ["INGEST_URL"])
    errors: list[str] = []
    guard = WorkerGuard("W-guarded-py", card=lambda: state["card"], record=lambda o: ingest.send([o]), on_record_error=lambda e, _o: errors.append(repr(e)))
    executor = TryingExecutor()
    handler = DefaultRequestHandler(agent_executor=guard.wrap(executor), task_store=InMemoryTaskStore(), agent_card=card_of(url, ["text/plain"]))
    app = Starlette(routes=[*create_agent_card_routes(card_of(url, ["text/plain"])), *create_jsonrpc_routes(handler, "/a2a/jsonrpc")])
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    serving = asyncio.create_task(server.serve())
    while not server.started:
        await asyncio.sleep(0.05)
    client = await create_client(url, ClientConfig(streaming=False))

    async def send(text: str, correlation_id: str | None):
        last = None
        async for event in client.send_message(SendMessageRequest(message=message(text, correlation_id))):
            last = event
        return last.task

    def report(case: str, task) -> None:
        print(json.dumps({"case": case, "taskId": task.id, "state": TaskState.Name(task.status.state), "caught": executor.caught.get(task.id, []), "artifactModes": [[p.media_type for p in a.parts] for a in task.artifacts], "history": [TaskState.Name(task.status.state)]}), flush=True)

    report("state", await send("state:TASK_STATE_INPUT_REQUIRED artifact:text/plain", "py-state"))
    report("mode", await send("artifact:application/json artifact:text/plain", "py-mode"))
    sending = asyncio.create_task(send("wait artifact:text/plain artifact:application/json", "py-change"))
    await executor.waiting.wait()
    state["card"] = card_of(url, ["application/json"])
    executor.gate.set()
    report("change", await sending)
    state["card"] = card_of(url, ["text/plain"])
    report("no-correlation", await send("state:TASK_STATE_AUTH_REQUIRED", None))
    print(json.dumps({"case": "summary", "refused": guard.refused, "recordErrors": errors}), flush=True)
    await client.close()
    server.should_exit = True
    await serving


if __name__ == "__main__":
    asyncio.run(main())
    sys.exit(0)
