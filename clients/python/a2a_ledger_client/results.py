"""What the client answers: dataclasses with a ``kind`` the caller must handle (``match`` on the class or on
``kind``). A TaskNotFound is never an exception: whether it means "lost, not finished" or "finished and
purged" depends on the last state seen of the task, and the caller must treat the two differently (DESIGN
§4, R4 and R5).

The names and ``kind`` strings are those of the TypeScript client (``@a2a-ledger/a2a-client``):
``TaskAnswer`` (task), ``MessageAnswer`` (message), ``Refused`` (refused), ``Indeterminate``
(indeterminate), ``Purged`` (purged), ``UnknownTask`` (unknown-task).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Union

from a2a.types.a2a_pb2 import Message, Task
from a2a.utils.errors import A2AError


@dataclass(frozen=True)
class TaskAnswer:
    """The worker answered with a task: its state normalized (a state outside the spec is UNSPECIFIED,
    ``raw_state`` keeps it); ``terminal`` tells whether the task is finished (completed, failed, canceled,
    rejected)."""

    correlation_id: str
    worker_id: str
    task: Task
    state: str
    raw_state: str
    terminal: bool
    kind: Literal["task"] = field(default="task", init=False)


@dataclass(frozen=True)
class MessageAnswer:
    """The worker answered a dispatch with a message and no task."""

    correlation_id: str
    worker_id: str
    message: Message
    kind: Literal["message"] = field(default="message", init=False)


@dataclass(frozen=True)
class Refused:
    """The worker answered with an A2A error other than TaskNotFound (e.g. ContentTypeNotSupported): it did
    not take the message, or refused the call."""

    correlation_id: str
    worker_id: str
    error: A2AError
    kind: Literal["refused"] = field(default="refused", init=False)


@dataclass(frozen=True)
class Indeterminate:
    """TaskNotFound for a task whose last known state was not terminal (submitted, working, input- or
    auth-required, or a state outside the spec): the worker lost it. Neither failed nor resumable on that
    worker; the ledger decides (TaskIndeterminate, then a re-dispatch or ReconciliationBlocked)."""

    correlation_id: str
    worker_id: str
    server_task_id: str
    last_state: str
    #: The error code the worker answered: "-32001" (JSON-RPC), "404" (HTTP+JSON) or "NOT_FOUND" (gRPC).
    error_code: str
    kind: Literal["indeterminate"] = field(default="indeterminate", init=False)


@dataclass(frozen=True)
class Purged:
    """TaskNotFound for a task last seen in a terminal state: legal, the worker purged it (R4)."""

    correlation_id: str
    worker_id: str
    server_task_id: str
    last_state: str
    error_code: str
    kind: Literal["purged"] = field(default="purged", init=False)


@dataclass(frozen=True)
class UnknownTask:
    """TaskNotFound for a task this client never saw (and the caller named no last state): nothing can be
    concluded."""

    correlation_id: str
    worker_id: str
    server_task_id: str
    error_code: str
    kind: Literal["unknown-task"] = field(default="unknown-task", init=False)


SendOutcome = Union[TaskAnswer, MessageAnswer, Refused]
GetTaskOutcome = Union[TaskAnswer, Indeterminate, Purged, UnknownTask, Refused]
NotFoundOutcome = Union[Indeterminate, Purged, UnknownTask]
