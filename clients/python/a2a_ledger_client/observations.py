"""The observations an orchestrator records, in the ingest JSON shape (services/ingest/README.md), with their
event ids. Pure: A2A values in (ProtoJSON dicts, as the a2a-sdk's ``MessageToDict`` gives them), dicts out.

The event ids are derived exactly as the recording proxy derives them (services/proxy/src/observations.ts),
so the same fact seen twice by the same observer is one event in the ledger:

- a dispatch: its messageId (a retry of the same message is the same dispatch);
- a state: the task, the raw state, the worker's status timestamp and the channel;
- an artifact or a streamed chunk: the task, artifactId, append/lastChunk and a digest of its parts;
- a TaskNotFound: the task, the method, the error code and the last state sighting of that task this
  ``Recording`` built (when it remembers one): a loss after the task was seen again is a new loss, a
  TaskNotFound built again with no sighting in between is the same one;

each together with the correlation id, the observer and the worker. A state without a timestamp and every
card fetch get a random id. Hostile values are recorded, never dropped: a state outside the spec is
``TASK_STATE_UNSPECIFIED`` with its raw spelling; an artifact without an artifactId or a status without a
state is the one thing that is not recorded (it names nothing the ledger could hold it to).
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from collections import OrderedDict
from typing import Any, Literal

from .states import normalize_state

Channel = Literal["SEND_RESPONSE", "GET", "STREAM", "PUSH"]
Observation = dict[str, Any]


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value != "" else None


def _js(value: str | int | bool | None) -> str:
    """The value as the proxy's `String(p)` writes it (null marks itself)."""
    if value is None:
        return "\u0001"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def digest(*parts: str | int | bool | None) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(f"{_js(p)}\u0000".encode("utf-8"))
    return h.hexdigest()[:40]


def event_id(kind: str, *parts: str | int | bool | None) -> str:
    return f"{kind}-{digest(kind, *parts)}"


def _js_json(value: Any) -> str:
    """JSON text as JavaScript's JSON.stringify writes it (no spaces, non-ASCII kept)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _b64_size(b64: str) -> int:
    clean = "".join(c for c in b64 if not c.isspace() and c != "=")
    return (len(clean) * 3) // 4


def summarize_part(part: Any) -> dict[str, Any]:
    """{kind, mediaType, sizeBytes} of one part, read as the proxy reads it (v1.0 and v0.3 shapes)."""
    if not isinstance(part, dict):
        return {"kind": "OTHER", "mediaType": None, "sizeBytes": 0}
    file = part.get("file") if isinstance(part.get("file"), dict) else None
    media_type = _text(part.get("mediaType")) or _text(part.get("mimeType")) or (None if file is None else (_text(file.get("mimeType")) or _text(file.get("mediaType"))))
    if isinstance(part.get("text"), str):
        return {"kind": "TEXT", "mediaType": media_type, "sizeBytes": len(part["text"].encode("utf-8"))}
    if isinstance(part.get("raw"), str):
        return {"kind": "RAW", "mediaType": media_type, "sizeBytes": _b64_size(part["raw"])}
    if isinstance(part.get("url"), str):
        return {"kind": "URL", "mediaType": media_type, "sizeBytes": len(part["url"].encode("utf-8"))}
    if "data" in part and part.get("kind") != "file":
        return {"kind": "DATA", "mediaType": media_type, "sizeBytes": len(_js_json(part["data"]).encode("utf-8"))}
    if file is not None:
        if isinstance(file.get("bytes"), str):
            return {"kind": "RAW", "mediaType": media_type, "sizeBytes": _b64_size(file["bytes"])}
        if isinstance(file.get("uri"), str):
            return {"kind": "URL", "mediaType": media_type, "sizeBytes": len(file["uri"].encode("utf-8"))}
    return {"kind": "OTHER", "mediaType": media_type, "sizeBytes": 0}


class RecentMap:
    """A dict bounded by count: setting a key makes it the most recent; beyond the capacity the least recent leaves."""

    def __init__(self, capacity: int) -> None:
        if capacity < 1:
            raise ValueError("capacity must be a positive integer")
        self._entries: OrderedDict[str, Any] = OrderedDict()
        self._capacity = capacity

    def set(self, key: str, value: Any) -> None:
        self._entries.pop(key, None)
        self._entries[key] = value
        if len(self._entries) > self._capacity:
            self._entries.popitem(last=False)

    def get(self, key: str) -> Any:
        return self._entries.get(key)

    def pop(self, key: str) -> Any:
        return self._entries.pop(key, None)

    def __len__(self) -> int:
        return len(self._entries)


class Recording:
    """Builds the observations of one observer about one worker."""

    def __init__(self, observer: str, worker_id: str, sightings_capacity: int = 100_000) -> None:
        self.observer = observer
        self.worker_id = worker_id
        # The eventId of the last state built per task (in the process only).
        self._sightings = RecentMap(sightings_capacity)

    def _head(self, kind: str, correlation_id: str, at_ms: int) -> Observation:
        return {"type": kind, "correlationId": correlation_id, "occurredAt": at_ms, "observer": self.observer, "workerId": self.worker_id}

    def dispatch(self, correlation_id: str, message_id: str, skill_id: str | None, accepted_output_modes: list[str], attempt: int, card_hash: str | None, card_fetched_at_ms: int | None, at_ms: int) -> Observation:
        eid = f"dispatch-{uuid.uuid4()}" if message_id == "" else event_id("dispatch", correlation_id, self.observer, self.worker_id, message_id)
        return {
            **self._head("TaskDispatched", correlation_id, at_ms),
            "eventId": eid,
            "skillId": skill_id,
            "messageId": message_id,
            "acceptedOutputModes": list(accepted_output_modes),
            "cardHash": card_hash,
            "cardFetchedAt": card_fetched_at_ms,
            "attempt": attempt,
        }

    def state(self, correlation_id: str, task_id: str, context_id: str | None, raw_state: str, timestamp: str | None, via: Channel, at_ms: int) -> Observation:
        eid = f"state-{uuid.uuid4()}" if timestamp is None else event_id("state", correlation_id, self.observer, self.worker_id, task_id, raw_state, timestamp, via)
        self._sightings.set(task_id, eid)
        return {
            **self._head("TaskStateObserved", correlation_id, at_ms),
            "eventId": eid,
            "serverTaskId": task_id,
            "contextId": context_id,
            # A state outside the spec is recorded as UNSPECIFIED with its raw spelling: the ledger never drops a fact.
            "state": normalize_state(raw_state) or "TASK_STATE_UNSPECIFIED",
            "rawState": raw_state,
            "via": via,
        }

    def artifact(self, correlation_id: str, task_id: str, artifact: dict[str, Any], chunk: tuple[bool, bool] | None, at_ms: int) -> Observation | None:
        """`chunk` is (append, lastChunk) of an artifact update; None for an artifact that arrived whole in a Task."""
        artifact_id = _text(artifact.get("artifactId"))
        if artifact_id is None:
            return None
        parts = artifact.get("parts") if isinstance(artifact.get("parts"), list) else []
        append = chunk[0] if chunk is not None else False
        last_chunk = None if chunk is None else chunk[1]
        return {
            **self._head("ArtifactEmitted", correlation_id, at_ms),
            "eventId": event_id("artifact", correlation_id, self.observer, self.worker_id, task_id, artifact_id, append, last_chunk, digest(_js_json(parts))),
            "serverTaskId": task_id,
            "artifactId": artifact_id,
            "name": _text(artifact.get("name")),
            "parts": [summarize_part(p) for p in parts],
            "append": append,
            "lastChunk": last_chunk,
        }

    def task_not_found(self, correlation_id: str, task_id: str, method: str, error_code: str, at_ms: int) -> Observation:
        last = self._sightings.get(task_id)
        after = () if last is None else (last,)
        return {
            **self._head("TaskNotFoundObserved", correlation_id, at_ms),
            "eventId": event_id("not-found", correlation_id, self.observer, self.worker_id, task_id, method, error_code, *after),
            "serverTaskId": task_id,
            "method": method,
            "errorCode": error_code,
        }

    def card(self, card_url: str, card_text: str, cache_max_age_seconds: int | None, etag: str | None, at_ms: int) -> Observation:
        return {
            **self._head("AgentCardObserved", f"card:{self.worker_id}", at_ms),
            "eventId": f"card-{uuid.uuid4()}",
            "cardUrl": card_url,
            "card": card_text,
            "cacheMaxAgeSeconds": cache_max_age_seconds,
            "etag": etag,
        }

    def sightings(self, correlation_id: str, payload: dict[str, Any], via: Channel, at_ms: int) -> tuple[list[Observation], list[tuple[str, str | None]]]:
        """Observations of one A2A result value (a Task, a StreamResponse's task/statusUpdate/artifactUpdate, a
        SendMessageResponse), and the (task id, raw state) pairs it showed, in order."""
        out: list[Observation] = []
        seen: list[tuple[str, str | None]] = []
        task = payload.get("task") if isinstance(payload.get("task"), dict) else (payload if "status" in payload and "id" in payload else None)
        if isinstance(task, dict) and _text(task.get("id")) is not None:
            task_id = task["id"]
            status = task.get("status") if isinstance(task.get("status"), dict) else {}
            raw = _text(status.get("state"))
            if raw is not None:
                out.append(self.state(correlation_id, task_id, _text(task.get("contextId")), raw, _text(status.get("timestamp")), via, at_ms))
            seen.append((task_id, raw))
            for a in task.get("artifacts") if isinstance(task.get("artifacts"), list) else []:
                o = self.artifact(correlation_id, task_id, a, None, at_ms) if isinstance(a, dict) else None
                if o is not None:
                    out.append(o)
        update = payload.get("statusUpdate")
        if isinstance(update, dict) and _text(update.get("taskId")) is not None:
            status = update.get("status") if isinstance(update.get("status"), dict) else {}
            raw = _text(status.get("state"))
            if raw is not None:
                out.append(self.state(correlation_id, update["taskId"], _text(update.get("contextId")), raw, _text(status.get("timestamp")), via, at_ms))
                seen.append((update["taskId"], raw))
        chunk = payload.get("artifactUpdate")
        if isinstance(chunk, dict) and _text(chunk.get("taskId")) is not None and isinstance(chunk.get("artifact"), dict):
            # ProtoJSON leaves out false booleans: a missing flag is false.
            o = self.artifact(correlation_id, chunk["taskId"], chunk["artifact"], (chunk.get("append") is True, chunk.get("lastChunk") is True), at_ms)
            if o is not None:
                out.append(o)
        return out, seen


def max_age_of(cache_control: str | None) -> int | None:
    """`max-age` of a Cache-Control header, in seconds; None when absent."""
    if cache_control is None:
        return None
    m = re.search(r'(?:^|[,\s])max-age\s*=\s*"?(\d{1,12})"?', cache_control, re.IGNORECASE)
    return None if m is None else int(m.group(1))

