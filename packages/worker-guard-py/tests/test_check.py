"""The guard's rule, given a card and an emission (no SDK server, no network)."""

import unittest

from a2a_ledger_guard.check import Emission, PartSummary, check_emission
from a2a_ledger_guard.guard import card_hash

CARD = {
    "capabilities": {"extensions": [{"uri": "urn:a2a-ledger:ext:task-lifecycle:v1", "params": {"states": ["TASK_STATE_SUBMITTED", "working", "TASK_STATE_COMPLETED"]}}]},
    "defaultOutputModes": ["text/plain"],
    "skills": [{"id": "answer", "outputModes": ["text/plain"]}, {"id": "report", "outputModes": ["application/json", "image/*"]}, {"id": "plain"}],
}


def status(raw: str) -> Emission:
    return Emission("STATUS", "t-1", None, raw_state=raw)


def artifact(*media_types):
    return Emission("ARTIFACT", "t-1", None, artifact_id="a-1", parts=tuple(PartSummary("TEXT", m, 1) for m in media_types))


class States(unittest.TestCase):
    def test_an_advertised_state_passes_in_either_spelling(self):
        self.assertIsNone(check_emission(CARD, status("TASK_STATE_WORKING"), None))
        self.assertIsNone(check_emission(CARD, status("completed"), None))

    def test_a_state_the_extension_does_not_list_is_refused_with_what_it_lists(self):
        refusal = check_emission(CARD, status("TASK_STATE_INPUT_REQUIRED"), "answer")
        self.assertEqual(refusal.kind, "STATE_NOT_ADVERTISED")
        self.assertEqual(refusal.state, "TASK_STATE_INPUT_REQUIRED")
        self.assertEqual(refusal.allowed, ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED"])

    def test_without_the_extension_every_spec_state_passes_and_unspecified_does_not(self):
        self.assertIsNone(check_emission({}, status("TASK_STATE_AUTH_REQUIRED"), None))
        self.assertEqual(check_emission({}, status("TASK_STATE_UNSPECIFIED"), None).kind, "STATE_NOT_ADVERTISED")
        self.assertIsNone(check_emission("not a card", status("TASK_STATE_WORKING"), None))

    def test_a_spelling_outside_the_spec_is_refused(self):
        refusal = check_emission(CARD, status("paused"), None)
        self.assertIsNone(refusal.state)
        self.assertEqual(refusal.raw_state, "paused")


class Artifacts(unittest.TestCase):
    def test_a_named_skill_is_held_to_its_own_modes_with_ranges_and_parameters(self):
        self.assertIsNone(check_emission(CARD, artifact("image/png", "application/json; charset=utf-8"), "report"))
        refusal = check_emission(CARD, artifact("application/json"), "answer")
        self.assertEqual((refusal.kind, refusal.refused_modes, refusal.allowed), ("OUTPUT_MODE_NOT_ADVERTISED", ["application/json"], ["text/plain"]))

    def test_no_skill_and_a_skill_without_modes_use_the_defaults(self):
        self.assertIsNone(check_emission(CARD, artifact("text/plain"), "plain"))
        self.assertEqual(check_emission(CARD, artifact("text/html"), "plain").allowed, ["text/plain"])
        self.assertEqual(check_emission(CARD, artifact("application/json"), None).refused_modes, ["application/json"])

    def test_an_unlisted_skill_and_parts_without_a_media_type_are_not_judged(self):
        self.assertIsNone(check_emission(CARD, artifact("application/pdf"), "unlisted"))
        self.assertIsNone(check_emission(CARD, artifact(None), "answer"))

    def test_each_refused_mode_is_named_once(self):
        self.assertEqual(check_emission(CARD, artifact("text/plain", "text/html", "text/html"), "answer").refused_modes, ["text/html"])


if __name__ == "__main__":
    unittest.main()


class CardHash(unittest.TestCase):
    def test_a_card_signed_again_is_the_same_card_as_the_core_hashes_it(self):
        card = {"name": "w1", "version": "1.0", "skills": [{"id": "s", "outputModes": ["text/plain"]}]}
        signed = [dict(card, signatures=[{"protected": "eyJhbGciOiJFUzI1NiJ9", "signature": s}]) for s in ("a", "b")]
        # sha256sum of the canonical text; the core's cardHash gives the same (packages/core/src/card.test.ts).
        unsigned = "de3d9935785dec117ca8559b6db62b68069d47ae2a062f1639d755ca49115bd1"
        self.assertEqual([card_hash(c) for c in [card, *signed]], [unsigned] * 3)
