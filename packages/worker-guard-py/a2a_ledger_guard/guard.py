"""The guard on the Python a2a-sdk: ``guard.wrap(executor)`` hands the executor an event queue that checks
every event at the moment it is enqueued — whether the executor enqueues it or a ``TaskUpdater`` does —
against the card the provider returns *then* (a card changed since dispatch is the one that counts):

- a ``Task`` and every ``TaskStatusUpdateEvent``: the state against the card's advertised states;
- a ``Task``'s artifacts and every ``TaskArtifactUpdateEvent``: each part's media type against the
  skill's output modes (the skill named by the ``a2a-ledger.skillId`` metadata, else the card defaults).

An event outside the card is not enqueued: ``enqueue_event`` records the refusal as an ``EmissionRefused``
observation and raises ``EmissionRefusedError``, which the executor sees where it tried to emit.
Messages are not checked. The correlation id is the ``a2a-ledger.correlationId`` (or ``correlationId``)
metadata of the message or the request, else the server task id, as the recording proxy does.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.types.a2a_pb2 import AgentCard, Artifact, Part, Task, TaskArtifactUpdateEvent, TaskState, TaskStatusUpdateEvent
from google.protobuf import json_format

from .check import Emission, PartSummary, Refusal, check_emission

#: Stable error codes of the guard.
GUARD_STATE_NOT_ADVERTISED = "GUARD_STATE_NOT_ADVERTISED"
GUARD_OUTPUT_MODE_NOT_ADVERTISED = "GUARD_OUTPUT_MODE_NOT_ADVERTISED"
GUARD_CARD_UNAVAILABLE = "GUARD_CARD_UNAVAILABLE"

Sink = Callable[[dict[str, Any]], Awaitable[Any]]


class EmissionRefusedError(Exception):
    """What ``enqueue_event`` raises for an emission outside the card in force."""

    def __init__(self, code: str, message: str, refusal: Refusal | None, server_task_id: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.refusal = refusal
        self.server_task_id = server_task_id


def _visible(value: Any) -> str | None:
    if isinstance(value, str) and 1 <= len(value.strip()) <= 200 and all(0x21 <= ord(c) <= 0x7E for c in value.strip()):
        return value.strip()
    return None


def scope_of(context: RequestContext) -> tuple[str | None, str | None]:
    """(correlation id, skill id) named by the request: message metadata first, then the request's."""
    sources: list[dict[str, Any]] = []
    if context.message is not None and context.message.HasField("metadata"):
        sources.append(json_format.MessageToDict(context.message.metadata))
    sources.append(context.metadata)

    def pick(*keys: str) -> str | None:
        for metadata in sources:
            for key in keys:
                found = _visible(metadata.get(key))
                if found is not None:
                    return found
        return None

    return pick("a2a-ledger.correlationId", "correlationId"), pick("a2a-ledger.skillId", "skillId")


def summarize_part(part: Part) -> PartSummary:
    media_type = part.media_type or None
    which = part.WhichOneof("content")
    if which == "text":
        return PartSummary("TEXT", media_type, len(part.text.encode("utf-8")))
    if which == "raw":
        return PartSummary("RAW", media_type, len(part.raw))
    if which == "url":
        return PartSummary("URL", media_type, len(part.url.encode("utf-8")))
    if which == "data":
        return PartSummary("DATA", media_type, len(json.dumps(json_format.MessageToDict(part.data), separators=(",", ":")).encode("utf-8")))
    return PartSummary("OTHER", media_type, 0)


def _artifact(task_id: str, context_id: str, artifact: Artifact) -> Emission:
    return Emission("ARTIFACT", task_id, context_id or None, artifact_id=artifact.artifact_id, parts=tuple(summarize_part(p) for p in artifact.parts))


def _status(task_id: str, context_id: str, state: int) -> Emission:
    return Emission("STATUS", task_id, context_id or None, raw_state=TaskState.Name(state))


def emissions_of(event: Any) -> list[Emission]:
    if isinstance(event, Task):
        out = [_status(event.id, event.context_id, event.status.state)] if event.HasField("status") else []
        return out + [_artifact(event.id, event.context_id, a) for a in event.artifacts]
    if isinstance(event, TaskStatusUpdateEvent):
        return [_status(event.task_id, event.context_id, event.status.state)] if event.HasField("status") else []
    if isinstance(event, TaskArtifactUpdateEvent):
        return [_artifact(event.task_id, event.context_id, event.artifact)] if event.HasField("artifact") else []
    return []


def card_hash(card: dict[str, Any]) -> str:
    """sha256 of the card's canonical JSON (RFC 8785 for cards of strings, integers and booleans), without its
    top-level signatures: A2A signs the card without them, so a card signed again is the same card."""
    unsigned = {k: v for k, v in card.items() if k != "signatures"}
    canonical = json.dumps(unsigned, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class WorkerGuard:
    def __init__(self, worker_id: str, card: Callable[[], AgentCard], record: Sink, observer: str | None = None, now: Callable[[], float] = time.time, on_record_error: Callable[[Exception, dict[str, Any]], None] | None = None) -> None:
        self.worker_id = worker_id
        self.observer = observer or f"guard:{worker_id}"
        self._card = card
        self._record = record
        self._now = now
        self._on_record_error = on_record_error
        self._scopes: dict[str, tuple[str | None, str | None]] = {}
        self.refused = 0

    def wrap(self, executor: AgentExecutor) -> AgentExecutor:
        return GuardedExecutor(self, executor)

    def queue(self, inner: EventQueue, correlation_id: str | None, skill_id: str | None) -> EventQueue:
        return GuardedEventQueue(self, inner, correlation_id, skill_id)

    async def check(self, event: Any, correlation_id: str | None, skill_id: str | None) -> None:
        emissions = emissions_of(event)
        if not emissions:
            return
        try:
            card = json_format.MessageToDict(self._card())
        except Exception as e:  # noqa: BLE001 - any failure to read the card refuses, unrecorded
            raise EmissionRefusedError(GUARD_CARD_UNAVAILABLE, f"the card in force could not be read: {e}", None, emissions[0].server_task_id) from e
        for emission in emissions:
            refusal = check_emission(card, emission, skill_id)
            if refusal is not None:
                await self._refuse(card, emission, refusal, correlation_id, skill_id)

    async def _refuse(self, card: dict[str, Any], emission: Emission, refusal: Refusal, correlation_id: str | None, skill_id: str | None) -> None:
        self.refused += 1
        observation = self.observation(card, emission, refusal, correlation_id, skill_id)
        try:
            await self._record(observation)
        except Exception as e:  # noqa: BLE001 - the refusal stands even when it could not be recorded
            if self._on_record_error is not None:
                self._on_record_error(e, observation)
        if refusal.kind == "STATE_NOT_ADVERTISED":
            raise EmissionRefusedError(GUARD_STATE_NOT_ADVERTISED, f"{refusal.raw_state}: the card in force does not advertise this task state (advertised: {', '.join(refusal.allowed)})", refusal, emission.server_task_id)
        raise EmissionRefusedError(GUARD_OUTPUT_MODE_NOT_ADVERTISED, f"{', '.join(refusal.refused_modes)}: the card in force does not advertise this output mode for {skill_id or 'the card defaults'} (advertised: {', '.join(refusal.allowed)})", refusal, emission.server_task_id)

    def observation(self, card: dict[str, Any], emission: Emission, refusal: Refusal, correlation_id: str | None, skill_id: str | None) -> dict[str, Any]:
        correlation = correlation_id or emission.server_task_id
        digest_cardhash = card_hash(card)
        what = emission.raw_state if emission.emission == "STATUS" else f"{emission.artifact_id}\u0000{[(p.kind, p.media_type, p.size_bytes) for p in emission.parts]}"
        digest = hashlib.sha256("\u0000".join([correlation, self.observer, self.worker_id, emission.server_task_id, emission.emission, what or "", digest_cardhash]).encode("utf-8")).hexdigest()[:40]
        return {
            "type": "EmissionRefused",
            "eventId": f"refused-{digest}",
            "correlationId": correlation,
            "occurredAt": int(self._now() * 1000),
            "observer": self.observer,
            "workerId": self.worker_id,
            "serverTaskId": emission.server_task_id,
            "contextId": emission.context_id,
            "skillId": skill_id,
            "emission": emission.emission,
            "kind": refusal.kind,
            "state": (refusal.state or "TASK_STATE_UNSPECIFIED") if refusal.kind == "STATE_NOT_ADVERTISED" else None,
            "rawState": refusal.raw_state if refusal.kind == "STATE_NOT_ADVERTISED" else None,
            "artifactId": emission.artifact_id,
            "parts": [{"kind": p.kind, "mediaType": p.media_type, "sizeBytes": p.size_bytes} for p in emission.parts],
            "allowed": refusal.allowed,
            "cardHash": digest_cardhash,
        }


class GuardedEventQueue(EventQueue):
    """The SDK's queue with every enqueued event checked first."""

    def __init__(self, guard: WorkerGuard, inner: EventQueue, correlation_id: str | None, skill_id: str | None) -> None:
        self._guard = guard
        self._inner = inner
        self._correlation_id = correlation_id
        self._skill_id = skill_id

    async def enqueue_event(self, event: Any) -> None:
        await self._guard.check(event, self._correlation_id, self._skill_id)
        await self._inner.enqueue_event(event)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class GuardedExecutor(AgentExecutor):
    def __init__(self, guard: WorkerGuard, inner: AgentExecutor) -> None:
        self._guard = guard
        self._inner = inner

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        correlation_id, skill_id = scope_of(context)
        if context.task_id:
            self._guard._scopes[context.task_id] = (correlation_id, skill_id)
        await self._inner.execute(context, self._guard.queue(event_queue, correlation_id, skill_id))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        correlation_id, skill_id = self._guard._scopes.get(context.task_id or "", scope_of(context))
        await self._inner.cancel(context, self._guard.queue(event_queue, correlation_id, skill_id))
