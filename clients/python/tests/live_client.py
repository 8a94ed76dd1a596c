"""The client against the live mesh, run by test/client.test.ts, which starts the real ingest service on a
throwaway topic, W1 (@a2a-js/sdk, in-memory task store), W3 (the Python a2a-sdk, SQLite store) and a
hostile worker, and afterwards reads what reached Kafka. This script plays the orchestrator: it checks what
the caller gets and prints one JSON line per case. When it needs W1 restarted it prints
``{"await": "restart-w1"}`` and waits for a line on stdin.

Environment: INGEST_URL, W1_URL, W3_URL, HOSTILE_URL, DEAD_URL (a port nothing listens on).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any

from a2a_ledger_client import Indeterminate, LedgerA2AClient, LedgerClientError, MessageAnswer, ObservationRecorder, Purged, Refused, TaskAnswer, UnknownTask
from google.protobuf import json_format

OBSERVER = "orchestrator:py-live"


def emit(case: str, **fields: Any) -> None:
    print(json.dumps({"case": case, **fields}), flush=True)


def describe(outcome: Any) -> dict[str, Any]:
    """What the caller got, as plain JSON; the match is exhaustive over the result types."""
    match outcome:
        case TaskAnswer():
            task = json_format.MessageToDict(outcome.task)
            return {"kind": outcome.kind, "correlationId": outcome.correlation_id, "taskId": outcome.task.id, "contextId": outcome.task.context_id, "state": outcome.state, "rawState": outcome.raw_state, "terminal": outcome.terminal, "mediaTypes": [p.get("mediaType") for a in task.get("artifacts", []) for p in a.get("parts", [])]}
        case MessageAnswer():
            return {"kind": outcome.kind, "correlationId": outcome.correlation_id}
        case Refused():
            return {"kind": outcome.kind, "correlationId": outcome.correlation_id, "error": type(outcome.error).__name__}
        case Indeterminate() | Purged():
            return {"kind": outcome.kind, "correlationId": outcome.correlation_id, "taskId": outcome.server_task_id, "lastState": outcome.last_state, "errorCode": outcome.error_code}
        case UnknownTask():
            return {"kind": outcome.kind, "correlationId": outcome.correlation_id, "taskId": outcome.server_task_id, "errorCode": outcome.error_code}
    raise AssertionError(f"not a result of the client: {outcome!r}")


async def failure(call) -> dict[str, Any]:
    try:
        outcome = await call
    except LedgerClientError as e:
        return {"error": e.code}
    return {"error": None, "outcome": describe(outcome)}


async def wait_for_restart() -> None:
    print(json.dumps({"await": "restart-w1"}), flush=True)
    line = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    if line.strip() != "restarted":
        raise SystemExit(f"expected 'restarted', got {line!r}")


async def main() -> None:
    problems: list[str] = []
    recorder = ObservationRecorder.to_ingest(os.environ["INGEST_URL"], on_problem=lambda p: problems.append(p.kind))

    # W3, the Python a2a-sdk worker: a task to completion, then one that waits for input and gets it.
    w3 = await LedgerA2AClient.connect("W3", os.environ["W3_URL"], OBSERVER, recorder)
    done = await w3.dispatch("py-w3-done", "what is a ledger?", ["text/plain"], skill_id="answer")
    emit("w3-done", **describe(done), cardHash=w3.card.hash)
    assert isinstance(done, TaskAnswer)
    emit("w3-get", **describe(await w3.get_task("py-w3-done", done.task.id)))
    waiting = await w3.dispatch("py-w3-input", "need-input draft a report", ["text/plain"], skill_id="answer")
    assert isinstance(waiting, TaskAnswer)
    emit("w3-waiting", **describe(waiting))
    emit("w3-resumed", **describe(await w3.follow_up("py-w3-input", waiting.task.id, waiting.task.context_id, "for the board")))

    # W1 (@a2a-js/sdk, in-memory store) loses a task that waits for input when it restarts.
    w1 = await LedgerA2AClient.connect("W1", os.environ["W1_URL"], OBSERVER, recorder)
    lost = await w1.dispatch("py-lost", "need-input draft a plan", ["application/json"], skill_id="answer")
    assert isinstance(lost, TaskAnswer)
    emit("w1-waiting", **describe(lost))
    finished = await w1.dispatch("py-finished", "what is a ledger?", ["application/json"], skill_id="answer")
    assert isinstance(finished, TaskAnswer)
    await wait_for_restart()
    emit("w1-lost", **describe(await w1.get_task("py-lost", lost.task.id)))
    emit("w1-purged", **describe(await w1.get_task("py-finished", finished.task.id)))
    # A client that never saw the task: nothing can be concluded, unless the caller knows the last state.
    fresh = await LedgerA2AClient.connect("W1", os.environ["W1_URL"], OBSERVER, None)
    emit("w1-unknown", **describe(await fresh.get_task("py-lost", lost.task.id)))
    emit("w1-known-by-caller", **describe(await fresh.get_task("py-lost", lost.task.id, last_known_state="input-required")))
    rest = await LedgerA2AClient.connect("W1", os.environ["W1_URL"], OBSERVER, recorder, transport="HTTP+JSON")
    emit("w1-rest-unknown", **describe(await rest.get_task("py-rest", "no-such-task")))

    # A hostile worker: answers that are not A2A, an A2A refusal, a hang-up, odd artifacts, a card that is not JSON.
    hostile = await LedgerA2AClient.connect("W-hostile", os.environ["HOSTILE_URL"], OBSERVER, recorder)
    for directive in ("bad-state", "not-json", "empty-result", "refuse", "odd-artifacts", "hang-up"):
        emit(f"hostile-{directive}", **(await failure(hostile.dispatch(f"py-hostile-{directive}", directive, ["text/plain"], skill_id="answer"))))
    emit("hostile-get", **(await failure(hostile.get_task("py-hostile-get", "gone"))))
    emit("hostile-card", **(await failure(LedgerA2AClient.connect("W-hostile", os.environ["HOSTILE_URL"] + "/bad-card", OBSERVER, recorder))))

    # Ingest unreachable: the caller still gets the worker's answer; the observations wait, counted.
    down = ObservationRecorder.to_ingest(os.environ["DEAD_URL"], retry_initial=0.05)
    w3_down = await LedgerA2AClient.connect("W3", os.environ["W3_URL"], OBSERVER, down)
    answer = await w3_down.dispatch("py-ingest-down", "still answered?", ["text/plain"], skill_id="answer")
    await asyncio.sleep(0.3)
    s = down.stats()
    emit("ingest-down", **describe(answer), pending=s.pending, reachable=s.ingest_reachable, recorded=s.recorded)
    lost_on_close = await down.close(0.2)

    stats = await recorder.close(30)
    emit("summary", recorded=stats.recorded, pending=stats.pending, rejected=stats.rejected, dropped=stats.dropped, problems=sorted(set(problems)), lostOnClose=lost_on_close.pending)
    for c in (w3, w1, fresh, rest, hostile, w3_down):
        await c.close()


if __name__ == "__main__":
    asyncio.run(main())
