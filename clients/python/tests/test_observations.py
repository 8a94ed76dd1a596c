"""The observations the client builds: the ingest shape and the recording proxy's event ids (the vectors
below are what services/proxy/src/observations.ts derives for the same facts, so the ledger de-duplicates a
fact seen through the proxy and through this client by the same observer)."""

import unittest

from a2a_ledger_client.observations import Recording, summarize_part

rec = Recording("orchestrator:py", "W1")
ARTIFACT = {"artifactId": "a-1", "name": "result", "parts": [{"text": "héllo", "mediaType": "text/plain"}, {"data": {"k": [1, "x"]}, "mediaType": "application/json"}]}


class EventIds(unittest.TestCase):
    def test_given_the_same_dispatch_when_built_then_its_id_is_the_proxys(self):
        o = rec.dispatch("corr-1", "m-1", "answer", ["text/plain"], 2, None, None, 1000)
        self.assertEqual(o["eventId"], "dispatch-990bbd9bbf09473bbd3db2e4dc483583cb7ce8fd")
        self.assertEqual(o | {"eventId": None}, {"type": "TaskDispatched", "eventId": None, "correlationId": "corr-1", "occurredAt": 1000, "observer": "orchestrator:py", "workerId": "W1", "skillId": "answer", "messageId": "m-1", "acceptedOutputModes": ["text/plain"], "cardHash": None, "cardFetchedAt": None, "attempt": 2})

    def test_given_a_state_with_a_timestamp_when_built_then_its_id_is_the_proxys(self):
        o = rec.state("corr-1", "t-1", "c-1", "TASK_STATE_WORKING", "2026-12-02T00:00:00Z", "GET", 1000)
        self.assertEqual(o["eventId"], "state-a1987b16ee202f18e0c00cac8eda9b2f786d6c6a")

    def test_given_an_artifact_chunk_and_a_whole_artifact_when_built_then_ids_and_parts_are_the_proxys(self):
        self.assertEqual(rec.artifact("corr-1", "t-1", ARTIFACT, (True, False), 1000)["eventId"], "artifact-99e728087c334113988671a6c46291ed68f21724")
        whole = rec.artifact("corr-1", "t-1", ARTIFACT, None, 1000)
        self.assertEqual(whole["eventId"], "artifact-40bd18b13bbe7d77ac662645548505d325d52872")
        self.assertEqual(whole["parts"], [{"kind": "TEXT", "mediaType": "text/plain", "sizeBytes": 6}, {"kind": "DATA", "mediaType": "application/json", "sizeBytes": 13}])
        self.assertEqual((whole["append"], whole["lastChunk"]), (False, None))

    def test_given_a_task_not_found_when_built_then_its_id_is_the_proxys(self):
        fresh = Recording("orchestrator:py", "W1")
        self.assertEqual(fresh.task_not_found("corr-1", "t-1", "GetTask", "-32001", 1000)["eventId"], "not-found-aa3a0eb07b91a3c1c68c5f6f0d5019d3ab69b3a7")

    def test_given_a_task_lost_seen_again_and_lost_again_when_built_then_two_losses_with_the_proxys_ids(self):
        r = Recording("orchestrator:py", "W1")
        r.state("corr-1", "t-1", "c-1", "TASK_STATE_WORKING", "2026-12-02T00:00:00Z", "GET", 900)
        first = r.task_not_found("corr-1", "t-1", "GetTask", "-32001", 1000)["eventId"]
        self.assertEqual(first, "not-found-81f916363b8c04c2503554a77b5ca7a91828428a")
        self.assertEqual(r.task_not_found("corr-1", "t-1", "GetTask", "-32001", 1001)["eventId"], first)
        r.state("corr-1", "t-1", "c-1", "TASK_STATE_INPUT_REQUIRED", "2026-12-02T00:01:00Z", "GET", 1100)
        second = r.task_not_found("corr-1", "t-1", "GetTask", "-32001", 1200)["eventId"]
        self.assertNotEqual(second, first)
        self.assertEqual(r.task_not_found("corr-1", "t-1", "GetTask", "-32001", 1300)["eventId"], second)

    def test_given_no_timestamp_or_no_message_id_when_built_then_each_gets_an_id_of_its_own(self):
        a, b = (rec.state("c", "t", None, "TASK_STATE_WORKING", None, "GET", 1) for _ in range(2))
        self.assertNotEqual(a["eventId"], b["eventId"])
        self.assertTrue(rec.dispatch("c", "", None, [], 1, None, None, 1)["eventId"].startswith("dispatch-"))


class HostileValues(unittest.TestCase):
    def test_given_a_state_outside_the_spec_when_built_then_it_is_unspecified_with_its_raw_spelling(self):
        o = rec.state("c", "t", None, "TASK_STATE_DAYDREAMING", None, "SEND_RESPONSE", 1)
        self.assertEqual((o["state"], o["rawState"]), ("TASK_STATE_UNSPECIFIED", "TASK_STATE_DAYDREAMING"))

    def test_given_v03_spellings_when_built_then_the_state_is_normalized_and_the_raw_kept(self):
        o = rec.state("c", "t", None, "input-required", None, "GET", 1)
        self.assertEqual((o["state"], o["rawState"]), ("TASK_STATE_INPUT_REQUIRED", "input-required"))

    def test_given_an_artifact_without_an_id_when_built_then_nothing_is_recorded(self):
        self.assertIsNone(rec.artifact("c", "t", {"parts": [{"text": "x"}]}, None, 1))

    def test_given_parts_of_every_shape_when_summarized_then_kind_media_type_and_size_are_read(self):
        self.assertEqual(summarize_part({"raw": "aGVsbG8=", "mediaType": "application/octet-stream"}), {"kind": "RAW", "mediaType": "application/octet-stream", "sizeBytes": 5})
        self.assertEqual(summarize_part({"url": "https://x.example/a", "mimeType": "image/png"}), {"kind": "URL", "mediaType": "image/png", "sizeBytes": 19})
        self.assertEqual(summarize_part({"kind": "file", "file": {"bytes": "AAAA", "mimeType": "image/gif"}}), {"kind": "RAW", "mediaType": "image/gif", "sizeBytes": 3})
        self.assertEqual(summarize_part("not a part"), {"kind": "OTHER", "mediaType": None, "sizeBytes": 0})

    def test_given_a_task_payload_when_read_then_its_state_and_artifacts_are_observed_under_the_correlation(self):
        obs, seen = rec.sightings("corr-9", {"task": {"id": "t-9", "contextId": "c-9", "status": {"state": "TASK_STATE_COMPLETED"}, "artifacts": [ARTIFACT, {"name": "no id"}]}}, "SEND_RESPONSE", 5)
        self.assertEqual([o["type"] for o in obs], ["TaskStateObserved", "ArtifactEmitted"])
        self.assertEqual({o["correlationId"] for o in obs}, {"corr-9"})
        self.assertEqual(seen, [("t-9", "TASK_STATE_COMPLETED")])


if __name__ == "__main__":
    unittest.main()
