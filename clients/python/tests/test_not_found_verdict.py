"""What a TaskNotFound means (R4/R5 as the orchestrator sees it): lost when the task was not finished."""

import unittest

from a2a_ledger_client import Indeterminate, Purged, UnknownTask, not_found_verdict


class NotFoundVerdict(unittest.TestCase):
    def test_given_a_task_last_seen_not_terminal_when_the_worker_answers_not_found_then_it_is_indeterminate_not_failed(self):
        for last in ("TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_INPUT_REQUIRED", "auth-required", "TASK_STATE_UNSPECIFIED", "something-else"):
            with self.subTest(last=last):
                v = not_found_verdict("c", "W1", "t", "-32001", last)
                self.assertIsInstance(v, Indeterminate)
                self.assertEqual(v.kind, "indeterminate")
                self.assertNotIn(v.last_state, ("TASK_STATE_FAILED",))

    def test_given_a_task_last_seen_terminal_when_the_worker_answers_not_found_then_it_was_purged(self):
        for last in ("TASK_STATE_COMPLETED", "failed", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"):
            with self.subTest(last=last):
                v = not_found_verdict("c", "W1", "t", "404", last)
                self.assertIsInstance(v, Purged)
                self.assertEqual(v.kind, "purged")

    def test_given_a_task_never_seen_when_the_worker_answers_not_found_then_nothing_is_concluded(self):
        self.assertEqual(not_found_verdict("c", "W1", "t", "-32001", None), UnknownTask("c", "W1", "t", "-32001"))


if __name__ == "__main__":
    unittest.main()
