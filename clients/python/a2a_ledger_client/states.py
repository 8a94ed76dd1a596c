"""Task states as the ledger reads them (DESIGN §2): the v1.0 names, the v0.3 spellings normalized (the
worker guard's reading, one table for both Python packages), and which states are terminal."""

from __future__ import annotations

from a2a_ledger_guard.check import SPEC_STATES, normalize_state

TERMINAL_STATES = frozenset({"TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"})
INTERRUPTED_STATES = frozenset({"TASK_STATE_INPUT_REQUIRED", "TASK_STATE_AUTH_REQUIRED"})


def is_terminal(raw_state: str | None) -> bool:
    """Whether a state, in any spelling, is terminal; an unknown or missing state is not."""
    return raw_state is not None and normalize_state(raw_state) in TERMINAL_STATES


__all__ = ["INTERRUPTED_STATES", "SPEC_STATES", "TERMINAL_STATES", "is_terminal", "normalize_state"]
