"""The bounded in-memory queue between the client and the ingest API. Recording never holds up or loses the
worker's answer: ``record`` only enqueues (it never raises, never waits); a background task sends batches
through the ingest client of ``a2a_ledger_guard`` (which retries a batch itself, with the same eventIds)
and, while ingest stays down, keeps the batch at the head and tries again after a growing backoff.

What can be lost, and how it is counted (``stats()``):

- the queue is full (``capacity`` observations waiting): a new observation is dropped (``dropped``);
- ingest rejects an observation as invalid (400 with details): that one is dropped (``rejected``), the rest
  of its batch is sent again; a rejection without details drops the batch;
- the process dies: whatever is still waiting (``pending``) is gone. Await ``flush`` or ``close`` before
  exiting; an orchestrator that must not lose a fact across a crash puts the recording proxy (with its
  spool on disk) in front of the worker instead.

The same design, names and defaults as the TypeScript client's ``ObservationRecorder``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from a2a_ledger_guard.ingest import IngestClient, IngestRejectedError

Observation = dict[str, Any]


class ObservationSender(Protocol):
    def send(self, observations: list[Observation]) -> Awaitable[Any]: ...


@dataclass(frozen=True)
class RecordingProblem:
    """``unavailable``: a batch could not be sent (it stays queued); ``rejected``: ingest refused these
    eventIds as invalid (dropped); ``dropped``: the queue was full or the recorder closed."""

    kind: Literal["unavailable", "rejected", "dropped"]
    error: Exception | None
    event_ids: tuple[str, ...]
    pending: int


@dataclass(frozen=True)
class RecordingStats:
    #: Waiting to be acknowledged by ingest.
    pending: int
    #: Acknowledged by ingest (202).
    recorded: int
    #: Refused by ingest as invalid.
    rejected: int
    #: Not queued: the queue was full, or the recorder closed.
    dropped: int
    #: Whether the last attempt to send reached ingest.
    ingest_reachable: bool


class ObservationRecorder:
    def __init__(self, sender: ObservationSender, capacity: int = 10_000, batch_max: int = 200, retry_initial: float = 0.25, retry_max: float = 15.0, on_problem: Callable[[RecordingProblem], None] | None = None) -> None:
        if not isinstance(capacity, int) or capacity < 1:
            raise ValueError("capacity must be a positive integer")
        if not isinstance(batch_max, int) or batch_max < 1:
            raise ValueError("batch_max must be a positive integer")
        self._sender = sender
        self._capacity = capacity
        self._batch_max = batch_max
        self._retry_initial = retry_initial
        self._retry_max = retry_max
        self._on_problem = on_problem
        self._queue: list[Observation] = []
        self._recorded = 0
        self._rejected = 0
        self._dropped = 0
        self._reachable = True
        self._closed = False
        self._loop_task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._drained = asyncio.Event()
        self._drained.set()

    @staticmethod
    def to_ingest(base_url: str, token: str | None = None, **options: Any) -> ObservationRecorder:
        """A recorder sending to the ingest API at ``base_url``; each batch is tried three times by the ingest
        client before the queue's own backoff."""
        return ObservationRecorder(IngestClient(base_url, token=token, max_retries=2, initial_backoff=0.1, max_backoff=1.0, timeout=10.0), **options)

    def _problem(self, problem: RecordingProblem) -> None:
        if self._on_problem is not None:
            try:
                self._on_problem(problem)
            except Exception:  # noqa: BLE001 - a failing listener must not stop recording
                pass

    def record(self, observations: list[Observation]) -> None:
        """Queues observations in order; returns at once. After ``close``, drops them (counted). Must be
        called with an event loop running (the client's calls are coroutines)."""
        for o in observations:
            if self._closed or len(self._queue) >= self._capacity:
                self._dropped += 1
                self._problem(RecordingProblem("dropped", None, (str(o.get("eventId")),), len(self._queue)))
                continue
            self._queue.append(o)
        if self._queue:
            self._drained.clear()
            if self._loop_task is None or self._loop_task.done():
                self._loop_task = asyncio.get_running_loop().create_task(self._run())

    def stats(self) -> RecordingStats:
        return RecordingStats(len(self._queue), self._recorded, self._rejected, self._dropped, self._reachable)

    async def flush(self, timeout: float = 30.0) -> RecordingStats:
        """Returns when nothing is pending or ``timeout`` seconds passed; a failed batch is tried again at once."""
        if self._queue:
            self._wake.set()
            try:
                await asyncio.wait_for(self._drained.wait(), timeout)
            except asyncio.TimeoutError:
                pass
        return self.stats()

    async def close(self, timeout: float = 30.0) -> RecordingStats:
        """Flushes, then stops: what is still pending after ``timeout`` is lost (and stays counted in ``pending``)."""
        stats = await self.flush(timeout)
        self._closed = True
        self._wake.set()
        if self._loop_task is not None and not self._loop_task.done():
            self._loop_task.cancel()
            try:
                await self._loop_task
            except asyncio.CancelledError:
                pass
        return stats

    async def _run(self) -> None:
        failures = 0
        while self._queue and not self._closed:
            batch = self._queue[: self._batch_max]
            try:
                await self._sender.send(batch)
            except IngestRejectedError as e:
                self._reachable = True
                bad = {d.get("index") for d in e.details if isinstance(d, dict) and isinstance(d.get("index"), int) and 0 <= d["index"] < len(batch)}
                dropped = batch if not bad else [o for i, o in enumerate(batch) if i in bad]
                keep = [] if not bad else [o for i, o in enumerate(batch) if i not in bad]
                self._queue[: len(batch)] = keep
                self._rejected += len(dropped)
                self._problem(RecordingProblem("rejected", e, tuple(str(o.get("eventId")) for o in dropped), len(self._queue)))
                continue
            except Exception as e:  # noqa: BLE001 - ingest unreachable, 5xx after retries, timeouts: keep the batch
                self._reachable = False
                failures += 1
                self._problem(RecordingProblem("unavailable", e, (), len(self._queue)))
                self._wake.clear()
                try:
                    await asyncio.wait_for(self._wake.wait(), min(self._retry_max, self._retry_initial * 2 ** (failures - 1)))
                except asyncio.TimeoutError:
                    pass
                continue
            del self._queue[: len(batch)]
            self._recorded += len(batch)
            self._reachable = True
            failures = 0
        if not self._queue:
            self._drained.set()
