"""The scripted calls of the Python a2a-sdk client against one A2A worker, on one binding, printed as JSON.

    mesh/agent-py/.venv/bin/python calls.py <base-url> <JSONRPC|HTTP+JSON|GRPC> <correlation-id>

The client reads the card at <base-url> and talks on the chosen binding only. Every answer is printed as
ProtoJSON (google.protobuf.json_format), every error as its class name, so that the same calls made
directly and through the recording proxy can be compared answer by answer. Every message carries the
correlation id in its metadata (`a2a-ledger.correlationId`), as an orchestrator naming its logical task
does; the last call asks for a task nobody made, `unknown-<correlation-id>`.
"""

import asyncio
import json
import sys
import uuid

import grpc
import httpx
from a2a.client import ClientConfig, ClientFactory
from a2a.types.a2a_pb2 import (
    CancelTaskRequest,
    GetTaskRequest,
    ListTasksRequest,
    Message,
    Part,
    Role,
    SendMessageRequest,
    SubscribeToTaskRequest,
)
from google.protobuf.json_format import MessageToDict


def message(text: str, correlation: str, task_id: str = "", context_id: str = "") -> SendMessageRequest:
    m = Message(message_id=str(uuid.uuid4()), role=Role.ROLE_USER, task_id=task_id, context_id=context_id, parts=[Part(text=text, media_type="text/plain")])
    m.metadata.update({"a2a-ledger.correlationId": correlation})
    return SendMessageRequest(message=m)


async def client(base_url: str, binding: str, streaming: bool, http: httpx.AsyncClient):
    config = ClientConfig(
        streaming=streaming,
        httpx_client=http,
        supported_protocol_bindings=[binding],
        use_client_preference=True,
        grpc_channel_factory=grpc.aio.insecure_channel,
    )
    return await ClientFactory(config).create_from_url(base_url)


async def main(base_url: str, binding: str, correlation: str) -> None:
    out: list[dict] = []

    async def step(name: str, call):
        try:
            result = await call()
            out.append({"call": name, "result": result})
            return result
        except Exception as e:  # the error's class is the answer to compare
            out.append({"call": name, "error": type(e).__name__})
            return None

    def d(m) -> dict:
        return MessageToDict(m)

    async with httpx.AsyncClient(timeout=30) as http:
        unary = await client(base_url, binding, False, http)
        streaming = await client(base_url, binding, True, http)

        async def send(c, request) -> list[dict]:
            return [d(event) async for event in c.send_message(request)]

        await step("SendMessage", lambda: send(unary, message("what is a ledger?", correlation)))
        waiting = await step("SendMessage need-input", lambda: send(unary, message("need-input draft a report", correlation)))
        task = waiting[0]["task"]
        await step("GetTask", lambda: get(unary, task["id"]))
        await step("SendMessage follow-up", lambda: send(unary, message("for the board", correlation, task["id"], task["contextId"])))
        await step("SendStreamingMessage", lambda: send(streaming, message("stream chunks=3", correlation)))
        waiting2 = await step("SendMessage need-input 2", lambda: send(unary, message("need-input another", correlation)))
        task2 = waiting2[0]["task"]

        async def subscribe_and_cancel() -> list[dict]:
            events: list[dict] = []
            subscribed = asyncio.Event()

            async def read() -> None:
                async for event in streaming.subscribe(SubscribeToTaskRequest(id=task2["id"])):
                    events.append(d(event))
                    subscribed.set()

            reader = asyncio.create_task(read())
            # The first event is the task as it stands: cancel once it arrived, never racing the subscription.
            waiter = asyncio.ensure_future(subscribed.wait())
            await asyncio.wait([reader, waiter], timeout=30, return_when=asyncio.FIRST_COMPLETED)
            waiter.cancel()
            canceled = d(await unary.cancel_task(CancelTaskRequest(id=task2["id"])))
            await asyncio.wait_for(reader, 10)
            return [*events, {"canceled": canceled}]

        await step("SubscribeToTask + CancelTask", subscribe_and_cancel)
        await step("ListTasks", lambda: list_tasks(unary, task["contextId"]))
        await step("GetTask unknown", lambda: get(unary, f"unknown-{correlation}"))
        await unary.close()
        await streaming.close()
    print(json.dumps(out))


async def get(c, task_id: str) -> dict:
    return MessageToDict(await c.get_task(GetTaskRequest(id=task_id)))


async def list_tasks(c, context_id: str) -> dict:
    return MessageToDict(await c.list_tasks(ListTasksRequest(context_id=context_id)))


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: calls.py <base-url> <JSONRPC|HTTP+JSON|GRPC> <correlation-id>")
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3]))
