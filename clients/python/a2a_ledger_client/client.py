"""An A2A client of one worker for orchestrators, on the a2a-sdk's own client, that records what it sees
straight to the ledger (no proxy needed) and answers in typed results (results.py):

- ``connect`` fetches the worker's card (recorded as AgentCardObserved under ``card:<workerId>``) and builds
  the SDK client from it; every dispatch names the hash of the card it relied on;
- ``dispatch`` sends a new task under a durable correlation id, carried in the message metadata under
  ``a2a-ledger.correlationId`` (and in the ledger's headers), and records the dispatch, then every state
  and artifact of the answer;
- ``follow_up`` sends a message to a task the worker already has (input for an interrupted task);
- ``get_task`` asks for a task: a TaskNotFound is ``Indeterminate`` when the last state known of the task was
  not terminal, ``Purged`` when it was, ``UnknownTask`` when none is known — never an exception.

Recording goes through an ObservationRecorder (recorder.py): it never delays, fails or loses the worker's
answer; ``recorder=None`` records nothing (a recording proxy in front of the worker already does). The
client's own failures (no card, no answer, an answer that is not A2A) raise ``LedgerClientError`` with a
stable code; an A2A error the worker answered is a ``Refused`` result.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from typing import Any, Literal

import httpx
from a2a.client import ClientCallContext, ClientConfig, ClientFactory
from a2a.client.card_resolver import parse_agent_card
from a2a.client.errors import A2AClientError, A2AClientTimeoutError
from a2a.types.a2a_pb2 import GetTaskRequest, Message, Part, Role, SendMessageConfiguration, SendMessageRequest, Task
from a2a.utils.errors import A2AError, TaskNotFoundError
from a2a_ledger_guard.guard import card_hash
from google.protobuf import json_format

from .errors import LedgerClientError
from .metadata import ATTEMPT_KEY, CORRELATION_ID_KEY, SKILL_ID_KEY
from .not_found_verdict import not_found_verdict
from .observations import Channel, RecentMap, Recording, max_age_of
from .raw_states import RawStates
from .recorder import ObservationRecorder
from .results import GetTaskOutcome, MessageAnswer, Refused, SendOutcome, TaskAnswer
from .states import TERMINAL_STATES, normalize_state

AGENT_CARD_PATH = "/.well-known/agent-card.json"
CORRELATION_HEADER = "A2A-Ledger-Correlation-Id"
SKILL_HEADER = "A2A-Ledger-Skill-Id"
ATTEMPT_HEADER = "A2A-Ledger-Attempt"

Transport = Literal["JSONRPC", "HTTP+JSON"]


def _require_text(value: Any, name: str) -> None:
    if not isinstance(value, str) or value.strip() == "":
        raise LedgerClientError("A2A_CLIENT_BAD_REQUEST", f"{name} must be a non-empty string")


def ledger_metadata_of(correlation_id: str, skill_id: str | None = None, attempt: int | None = None) -> dict[str, str | int]:
    """The ledger's names of a call as message metadata: the correlation always, skill and attempt when known."""
    out: dict[str, str | int] = {CORRELATION_ID_KEY: correlation_id}
    if skill_id is not None:
        out[SKILL_ID_KEY] = skill_id
    if attempt is not None:
        out[ATTEMPT_KEY] = attempt
    return out


def ledger_headers_of(correlation_id: str, skill_id: str | None = None, attempt: int | None = None) -> dict[str, str]:
    """The same names as HTTP headers, for a call without a message (GetTask) and for recording proxies."""
    out = {CORRELATION_HEADER: correlation_id}
    if skill_id is not None:
        out[SKILL_HEADER] = skill_id
    if attempt is not None:
        out[ATTEMPT_HEADER] = str(attempt)
    return out


def _no_answer(e: BaseException) -> bool:
    """Whether the SDK's error means the worker gave no answer at all (nothing reached us)."""
    if isinstance(e, A2AClientTimeoutError):
        return True
    cause = e.__cause__
    return isinstance(cause, (httpx.TransportError, httpx.TimeoutException)) or isinstance(e, (httpx.TransportError, httpx.TimeoutException))


def _is_a2a_answer(e: BaseException) -> bool:
    """An A2A error the worker answered (TaskNotFound, ContentTypeNotSupported, …): not one of the SDK's own
    client errors (network, JSON, an invalid response), which subclass A2AError too."""
    return isinstance(e, A2AError) and not isinstance(e, A2AClientError)


class TaskMemory:
    """The last state this client saw of each task of one worker (by server task id), in the process only;
    the oldest task is forgotten first."""

    def __init__(self, capacity: int = 100_000) -> None:
        self._states = RecentMap(capacity)

    def remember(self, server_task_id: str, state: str) -> None:
        self._states.set(server_task_id, state)

    def last_state(self, server_task_id: str) -> str | None:
        return self._states.get(server_task_id)


class FetchedCard:
    def __init__(self, json_card: dict[str, Any], text: str, fetched_at_ms: int) -> None:
        #: The card as the worker served it.
        self.json = json_card
        self.text = text
        #: sha256 of its canonical JSON: the ledger's card identity.
        self.hash = card_hash(json_card)
        self.fetched_at_ms = fetched_at_ms


class LedgerA2AClient:
    def __init__(self, worker_id: str, observer: str, recorder: ObservationRecorder | None, client: Any, card: FetchedCard, transport: Transport, timeout: float, now: Callable[[], float], raw_states: RawStates) -> None:
        self.worker_id = worker_id
        self.observer = observer
        self.card = card
        self.transport = transport
        self._recorder = recorder
        self._client = client
        self._timeout = timeout
        self._now = now
        self._recording = Recording(observer, worker_id)
        self._memory = TaskMemory()
        self._raw_states = raw_states

    @staticmethod
    async def connect(worker_id: str, url: str, observer: str, recorder: ObservationRecorder | None, transport: Transport = "JSONRPC", timeout: float = 60.0, now: Callable[[], float] = time.time) -> LedgerA2AClient:
        """Fetches the worker's card (recording the fetch) and builds the SDK client from it."""
        _require_text(worker_id, "worker_id")
        _require_text(observer, "observer")
        card_url = url.rstrip("/") + AGENT_CARD_PATH
        try:
            async with httpx.AsyncClient(timeout=timeout) as http:
                response = await http.get(card_url, headers={"accept": "application/json", "A2A-Version": "1.0"})
        except httpx.HTTPError as e:
            raise LedgerClientError("A2A_CLIENT_CARD_UNAVAILABLE", f"{card_url}: {type(e).__name__}: {e}") from e
        text = response.text
        if response.status_code != 200:
            raise LedgerClientError("A2A_CLIENT_CARD_UNAVAILABLE", f"{card_url} answered {response.status_code}", {"status": response.status_code, "body": text[:500]})
        try:
            card_json = json.loads(text)
        except ValueError as e:
            raise LedgerClientError("A2A_CLIENT_CARD_UNAVAILABLE", f"{card_url} is not JSON", {"body": text[:500]}) from e
        if not isinstance(card_json, dict):
            raise LedgerClientError("A2A_CLIENT_CARD_UNAVAILABLE", f"{card_url} is not a JSON object")
        fetched = FetchedCard(card_json, text, int(now() * 1000))
        raw_states = RawStates()
        try:
            agent_card = parse_agent_card(json.loads(text))
            client = ClientFactory(ClientConfig(streaming=False, supported_protocol_bindings=[transport], httpx_client=httpx.AsyncClient(timeout=timeout, event_hooks={"response": [raw_states.on_response]}))).create(agent_card)
        except Exception as e:  # noqa: BLE001 - any card the SDK cannot build a client from
            raise LedgerClientError("A2A_CLIENT_CARD_UNAVAILABLE", f"no A2A client from the card at {card_url}: {type(e).__name__}: {e}") from e
        if recorder is not None:
            recording = Recording(observer, worker_id)
            recorder.record([recording.card(card_url, text, max_age_of(response.headers.get("cache-control")), response.headers.get("etag"), fetched.fetched_at_ms)])
        return LedgerA2AClient(worker_id, observer, recorder, client, fetched, transport, timeout, now, raw_states)

    async def close(self) -> None:
        await self._client.close()

    async def dispatch(self, correlation_id: str, text: str, accepted_output_modes: list[str], skill_id: str | None = None, attempt: int = 1, message_id: str | None = None) -> SendOutcome:
        """A new task under ``correlation_id``, blocking until the worker answers (a final or interrupted state,
        or a message). ``message_id`` defaults to a new UUID; the ledger de-duplicates a dispatch by it, so a
        retry of the same send keeps it."""
        _require_text(correlation_id, "correlation_id")
        if not isinstance(attempt, int) or isinstance(attempt, bool) or not 1 <= attempt <= 100_000:
            raise LedgerClientError("A2A_CLIENT_BAD_REQUEST", "attempt must be an integer from 1 to 100000")
        mid = message_id or str(uuid.uuid4())
        message = self._message(text, mid, ledger_metadata_of(correlation_id, skill_id, attempt))
        request = SendMessageRequest(message=message, configuration=SendMessageConfiguration(accepted_output_modes=list(accepted_output_modes)))
        dispatched = self._recording.dispatch(correlation_id, mid, skill_id, list(accepted_output_modes), attempt, self.card.hash, self.card.fetched_at_ms, self._ms())
        return await self._send(correlation_id, request, ledger_headers_of(correlation_id, skill_id, attempt), [dispatched])

    async def follow_up(self, correlation_id: str, task_id: str, context_id: str, text: str) -> SendOutcome:
        """A message to a task the worker has (the input an interrupted task waits for). Not a new dispatch."""
        _require_text(correlation_id, "correlation_id")
        _require_text(task_id, "task_id")
        message = self._message(text, str(uuid.uuid4()), ledger_metadata_of(correlation_id))
        message.task_id = task_id
        message.context_id = context_id
        return await self._send(correlation_id, SendMessageRequest(message=message), ledger_headers_of(correlation_id), [])

    async def get_task(self, correlation_id: str, task_id: str, last_known_state: str | None = None) -> GetTaskOutcome:
        """The task as the worker knows it, or what its TaskNotFound means (results.py). ``last_known_state``:
        the last state the caller knows of the task (kept across a restart of the orchestrator, say), used
        when this client saw none itself."""
        _require_text(correlation_id, "correlation_id")
        _require_text(task_id, "task_id")
        try:
            task = await self._client.get_task(GetTaskRequest(id=task_id), context=self._context(ledger_headers_of(correlation_id)))
        except Exception as e:  # noqa: BLE001 - sorted below: an A2A answer, no answer, or a malformed one
            if isinstance(e, TaskNotFoundError):
                error_code = "404" if self.transport == "HTTP+JSON" else "-32001"
                self._record([self._recording.task_not_found(correlation_id, task_id, "GetTask", error_code, self._ms())])
                last = self._memory.last_state(task_id) or last_known_state
                return not_found_verdict(correlation_id, self.worker_id, task_id, error_code, last)
            if _is_a2a_answer(e):
                return Refused(correlation_id, self.worker_id, e)
            raise self._failure(e) from e
        return self._task_answer(correlation_id, task, "GET")

    # -- internals

    def _ms(self) -> int:
        return int(self._now() * 1000)

    def _record(self, observations: list[dict[str, Any]]) -> None:
        if self._recorder is not None and observations:
            self._recorder.record(observations)

    def _context(self, headers: dict[str, str]) -> ClientCallContext:
        return ClientCallContext(service_parameters=headers, timeout=self._timeout)

    @staticmethod
    def _message(text: str, message_id: str, metadata: dict[str, str | int]) -> Message:
        message = Message(message_id=message_id, role=Role.ROLE_USER, parts=[Part(text=text, media_type="text/plain")])
        message.metadata.update(metadata)
        return message

    def _failure(self, e: BaseException) -> LedgerClientError:
        if _no_answer(e):
            return LedgerClientError("A2A_CLIENT_WORKER_UNREACHABLE", f"{self.worker_id} gave no A2A answer: {type(e).__name__}: {e}")
        return LedgerClientError("A2A_CLIENT_MALFORMED_ANSWER", f"{self.worker_id} answered something that is not an A2A answer: {type(e).__name__}: {e}")

    async def _send(self, correlation_id: str, request: SendMessageRequest, headers: dict[str, str], before: list[dict[str, Any]]) -> SendOutcome:
        last = None
        try:
            async for event in self._client.send_message(request, context=self._context(headers)):
                last = event
        except Exception as e:  # noqa: BLE001 - sorted below
            # An A2A error or a malformed answer is an answer: the message arrived, so a dispatch is a fact.
            # No answer at all leaves it unknown, and nothing is recorded.
            if _is_a2a_answer(e):
                self._record(before)
                return Refused(correlation_id, self.worker_id, e)
            failure = self._failure(e)
            if failure.code == "A2A_CLIENT_MALFORMED_ANSWER":
                self._record(before)
            raise failure from e
        self._record(before)
        if last is not None and last.HasField("task"):
            return self._task_answer(correlation_id, last.task, "SEND_RESPONSE")
        if last is not None and last.HasField("message"):
            return MessageAnswer(correlation_id, self.worker_id, last.message)
        raise LedgerClientError("A2A_CLIENT_MALFORMED_ANSWER", f"{self.worker_id} answered neither a task nor a message")

    def _task_answer(self, correlation_id: str, task: Task, via: Channel) -> TaskAnswer:
        if task.id == "":
            raise LedgerClientError("A2A_CLIENT_MALFORMED_ANSWER", f"{self.worker_id} answered a task without an id", {"task": json_format.MessageToDict(task)})
        as_json = json_format.MessageToDict(task)
        raw = self._raw_states.take(task.id)
        if "state" not in as_json.get("status", {}) and raw is not None:
            # The SDK could not read the worker's state (outside the enum): the raw spelling is the fact.
            as_json.setdefault("status", {})["state"] = raw
        raw_state = as_json.get("status", {}).get("state", "TASK_STATE_UNSPECIFIED")
        state = normalize_state(raw_state) or "TASK_STATE_UNSPECIFIED"
        self._memory.remember(task.id, state)
        observations, _ = self._recording.sightings(correlation_id, {"task": as_json}, via, self._ms())
        self._record(observations)
        return TaskAnswer(correlation_id, self.worker_id, task, state, raw_state, state in TERMINAL_STATES)
