"""The task states as the worker spelled them on the wire. The a2a-sdk parses answers leniently: a state
outside the protocol's enum becomes TASK_STATE_UNSPECIFIED and its spelling is gone, but the ledger records
the raw value of every state (it never drops a fact). This reads the raw JSON of each non-streaming answer
(an httpx response hook on the SDK's own HTTP client; JSON-RPC and HTTP+JSON bodies alike) and keeps the
spelling per task id until the client asks for it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx

from .observations import RecentMap


def raw_states_of(body: Any) -> Iterator[tuple[str, str]]:
    """(task id, raw state) of a SendMessage or GetTask answer: a JSON-RPC response or an HTTP+JSON body."""
    value = body.get("result", body) if isinstance(body, dict) else None
    if not isinstance(value, dict):
        return
    task = value.get("task") if isinstance(value.get("task"), dict) else value
    status = task.get("status")
    if isinstance(task.get("id"), str) and isinstance(status, dict) and isinstance(status.get("state"), str):
        yield task["id"], status["state"]


class RawStates:
    def __init__(self, capacity: int = 10_000) -> None:
        self._by_task = RecentMap(capacity)

    async def on_response(self, response: httpx.Response) -> None:
        content_type = response.headers.get("content-type", "")
        if "json" not in content_type:
            return  # an SSE stream is not read here: the SDK reads it event by event
        try:
            await response.aread()
            body = json.loads(response.content)
        except Exception:  # noqa: BLE001 - a body the SDK will judge itself
            return
        for task_id, raw in raw_states_of(body):
            self._by_task.set(task_id, raw)

    def take(self, task_id: str) -> str | None:
        """The raw state last read for the task, forgotten once taken."""
        return self._by_task.pop(task_id)
