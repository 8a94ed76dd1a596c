"""The recorder's queue: never waits, keeps what ingest could not take, drops only what it must (and says so).
The sender here is a stand-in for the ingest client; the live test (test/client.test.ts) uses the real one."""

import asyncio
import unittest

from a2a_ledger_client import ObservationRecorder
from a2a_ledger_guard.ingest import IngestRejectedError, IngestUnavailableError


class Sender:
    def __init__(self, fail_times: int = 0, reject_index: int | None = None) -> None:
        self.fail_times = fail_times
        self.reject_index = reject_index
        self.accepted: list[str] = []

    async def send(self, batch):
        await asyncio.sleep(0)
        if self.fail_times > 0:
            self.fail_times -= 1
            raise IngestUnavailableError("ingest is down")
        if self.reject_index is not None and self.reject_index < len(batch):
            index, self.reject_index = self.reject_index, None
            raise IngestRejectedError(400, "INGEST_INVALID_EVENT", "invalid", [{"index": index, "path": "/state", "message": "bad"}])
        self.accepted.extend(o["eventId"] for o in batch)
        return len(batch)


def obs(i: int) -> dict:
    return {"eventId": f"e-{i}"}


class Recorder(unittest.IsolatedAsyncioTestCase):
    async def test_given_ingest_down_then_up_when_recording_then_nothing_waits_and_everything_lands_in_order(self):
        problems = []
        sender = Sender(fail_times=3)
        r = ObservationRecorder(sender, retry_initial=0.01, on_problem=problems.append)
        r.record([obs(1), obs(2)])
        r.record([obs(3)])
        self.assertEqual(r.stats().pending, 3)
        stats = await r.flush(5)
        self.assertEqual(sender.accepted, ["e-1", "e-2", "e-3"])
        self.assertEqual((stats.pending, stats.recorded, stats.dropped, stats.ingest_reachable), (0, 3, 0, True))
        self.assertEqual([p.kind for p in problems], ["unavailable"] * 3)

    async def test_given_one_invalid_observation_when_ingest_rejects_the_batch_then_only_that_one_is_dropped(self):
        problems = []
        sender = Sender(reject_index=1)
        r = ObservationRecorder(sender, on_problem=problems.append)
        r.record([obs(1), obs(2), obs(3)])
        stats = await r.flush(5)
        self.assertEqual(sender.accepted, ["e-1", "e-3"])
        self.assertEqual((stats.recorded, stats.rejected), (2, 1))
        self.assertEqual(problems[0].event_ids, ("e-2",))

    async def test_given_a_full_queue_when_recording_then_the_new_observation_is_dropped_and_counted(self):
        r = ObservationRecorder(Sender(fail_times=1000), capacity=2, retry_initial=10)
        r.record([obs(1), obs(2), obs(3)])
        self.assertEqual((r.stats().pending, r.stats().dropped), (2, 1))
        stats = await r.close(0.05)
        self.assertEqual(stats.pending, 2)
        r.record([obs(4)])
        self.assertEqual(r.stats().dropped, 2)


if __name__ == "__main__":
    unittest.main()
