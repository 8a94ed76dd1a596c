"""The guard's rule, pure: may a worker emit this status or this artifact under the card in force now?

The same reading of a card as the ledger's (``interpretCard`` in ``@a2a-ledger/core``): the states come
from the lifecycle extension ``urn:a2a-ledger:ext:task-lifecycle:v1``, else every spec state; a skill's
output modes are its own ``outputModes``, else the card's ``defaultOutputModes``. A request naming no
skill is held to the defaults; a skill the card does not list is not judged, nor are parts without a
media type; a state outside the spec is never advertised. ``card`` is the card as ProtoJSON (a dict).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

LIFECYCLE_EXTENSION_URI = "urn:a2a-ledger:ext:task-lifecycle:v1"

SPEC_STATES = (
    "TASK_STATE_SUBMITTED",
    "TASK_STATE_WORKING",
    "TASK_STATE_INPUT_REQUIRED",
    "TASK_STATE_AUTH_REQUIRED",
    "TASK_STATE_COMPLETED",
    "TASK_STATE_FAILED",
    "TASK_STATE_CANCELED",
    "TASK_STATE_REJECTED",
)

_V03 = {
    "submitted": "TASK_STATE_SUBMITTED",
    "working": "TASK_STATE_WORKING",
    "input-required": "TASK_STATE_INPUT_REQUIRED",
    "auth-required": "TASK_STATE_AUTH_REQUIRED",
    "completed": "TASK_STATE_COMPLETED",
    "failed": "TASK_STATE_FAILED",
    "canceled": "TASK_STATE_CANCELED",
    "cancelled": "TASK_STATE_CANCELED",
    "rejected": "TASK_STATE_REJECTED",
    "TASK_STATE_CANCELLED": "TASK_STATE_CANCELED",
}


def normalize_state(raw: str) -> str | None:
    if raw in SPEC_STATES or raw == "TASK_STATE_UNSPECIFIED":
        return raw
    return _V03.get(raw)


@dataclass(frozen=True)
class PartSummary:
    kind: Literal["TEXT", "RAW", "URL", "DATA", "OTHER"]
    media_type: str | None
    size_bytes: int


@dataclass(frozen=True)
class Emission:
    emission: Literal["STATUS", "ARTIFACT"]
    server_task_id: str
    context_id: str | None
    raw_state: str | None = None
    artifact_id: str | None = None
    parts: tuple[PartSummary, ...] = ()


@dataclass(frozen=True)
class Refusal:
    kind: Literal["STATE_NOT_ADVERTISED", "OUTPUT_MODE_NOT_ADVERTISED"]
    allowed: list[str]
    state: str | None = None
    raw_state: str | None = None
    refused_modes: list[str] = field(default_factory=list)


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def advertised_states(card: Any) -> list[str]:
    caps = card.get("capabilities") if isinstance(card, dict) else None
    extensions = caps.get("extensions") if isinstance(caps, dict) else None
    if isinstance(extensions, list):
        for ext in extensions:
            if isinstance(ext, dict) and ext.get("uri") == LIFECYCLE_EXTENSION_URI:
                params = ext.get("params") if isinstance(ext.get("params"), dict) else {}
                declared = {normalize_state(s) for s in _strings(params.get("states"))}
                return [s for s in SPEC_STATES if s in declared]
    return list(SPEC_STATES)


def output_modes(card: Any, skill_id: str | None) -> list[str] | None:
    """The modes a skill may emit; None when the skill is not on the card (not judged)."""
    c = card if isinstance(card, dict) else {}
    defaults = _strings(c.get("defaultOutputModes"))
    if skill_id is None:
        return defaults
    for skill in c.get("skills") or []:
        if isinstance(skill, dict) and skill.get("id") == skill_id:
            return _strings(skill["outputModes"]) if isinstance(skill.get("outputModes"), list) else defaults
    return None


def _essence(media_type: str) -> str:
    return media_type.split(";", 1)[0].strip().lower()


def media_type_allowed(observed: str, allowed: list[str]) -> bool:
    o = _essence(observed)
    major = o.split("/", 1)[0]
    for a in allowed:
        e = _essence(a)
        if e in (o, "*/*", "*") or (e.endswith("/*") and e[:-2] == major):
            return True
    return False


def check_emission(card: Any, emission: Emission, skill_id: str | None) -> Refusal | None:
    """None when the emission is allowed, else what it would violate."""
    if emission.emission == "STATUS":
        raw = emission.raw_state or ""
        state = normalize_state(raw)
        states = advertised_states(card)
        if state is not None and state in states:
            return None
        return Refusal(kind="STATE_NOT_ADVERTISED", allowed=states, state=state, raw_state=raw)
    modes = output_modes(card, skill_id)
    if modes is None:
        return None
    refused: list[str] = []
    for part in emission.parts:
        if part.media_type is not None and not media_type_allowed(part.media_type, modes) and part.media_type not in refused:
            refused.append(part.media_type)
    return Refusal(kind="OUTPUT_MODE_NOT_ADVERTISED", allowed=list(modes), refused_modes=refused) if refused else None
