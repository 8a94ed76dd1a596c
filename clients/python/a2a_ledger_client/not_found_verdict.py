"""What a TaskNotFound means, from the last state known of the task (pure): not terminal → indeterminate
(lost), terminal → purged, none known → unknown-task. The same split as the rules' R4/R5."""

from __future__ import annotations

from .results import Indeterminate, NotFoundOutcome, Purged, UnknownTask
from .states import TERMINAL_STATES, normalize_state


def not_found_verdict(correlation_id: str, worker_id: str, server_task_id: str, error_code: str, last_state: str | None) -> NotFoundOutcome:
    """``last_state`` in any spelling; None: the task was never seen. A state outside the spec
    (UNSPECIFIED, or one no spelling names) counts as not terminal: the task is not known to be finished."""
    if last_state is None:
        return UnknownTask(correlation_id, worker_id, server_task_id, error_code)
    state = normalize_state(last_state) or "TASK_STATE_UNSPECIFIED"
    if state in TERMINAL_STATES:
        return Purged(correlation_id, worker_id, server_task_id, state, error_code)
    return Indeterminate(correlation_id, worker_id, server_task_id, state, error_code)
