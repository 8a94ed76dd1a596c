"""Schemathesis hooks for the ingest API (loaded through SCHEMATHESIS_HOOKS by openapi-fuzz.int.test.ts).

- NDJSON bodies: one generated observation is one line.
- cardHash: JSON Schema cannot say that a given cardHash must equal the hash of the card, and a
  generated hash almost never does. It is replaced by null, which the API documents as "compute it".
- The card as JSON text: the document states it with `contentMediaType: application/json` and a
  `contentSchema`, which JSON Schema 2020-12 (and schemathesis) treat as annotations. A rejection of
  a request whose card text does not satisfy them is not a schema-valid request rejected, so that
  failure is set aside, and counted on stderr at exit.
"""
import atexit
import json
import math
import os
import sys

import schemathesis

NDJSON_TYPES = ("application/x-ndjson", "application/ndjson", "application/jsonl")
MAX_DEPTH = int(os.environ.get("INGEST_FUZZ_MAX_DEPTH", "32"))
set_aside = []


@schemathesis.serializer(*NDJSON_TYPES)
def ndjson(ctx, value):
    if isinstance(value, bytes):
        return value
    return (json.dumps(value) + "\n").encode("utf-8")


def _events(body):
    return body if isinstance(body, list) else [body]


def _without_card_hash(event):
    if isinstance(event, dict) and event.get("type") == "AgentCardObserved" and isinstance(event.get("cardHash"), str):
        return {**event, "cardHash": None}
    return event


@schemathesis.hook
def before_call(context, case, **kwargs):
    # Every phase (examples, coverage, fuzzing) passes through here.
    if isinstance(case.body, list):
        case.body = [_without_card_hash(event) for event in case.body]
    else:
        case.body = _without_card_hash(case.body)


def _within(value, depth):
    """The contentSchema CardObject: containers at most MAX_DEPTH deep, numbers finite as doubles."""
    if isinstance(value, (dict, list)):
        if depth > MAX_DEPTH:
            return False
        children = value.values() if isinstance(value, dict) else value
        return all(_within(child, depth + 1) for child in children)
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return True
    try:
        return math.isfinite(float(value))
    except OverflowError:
        return False


def _card_text_satisfies_content(event):
    card = event.get("card") if isinstance(event, dict) else None
    if not isinstance(card, str):
        return True

    def refuse(constant):
        raise ValueError(constant)

    try:
        parsed = json.loads(card, parse_constant=refuse)
    except ValueError:
        return False
    return isinstance(parsed, dict) and _within(parsed, 1)


@schemathesis.hook
def filter_failure(context, failure, case, response):
    if failure.code == "ST202" and not all(_card_text_satisfies_content(e) for e in _events(case.body)):
        set_aside.append(response.status_code)
        return False
    return True


@atexit.register
def _report():
    print(f"ingest fuzz hooks: {len(set_aside)} rejection(s) of card texts outside contentSchema set aside", file=sys.stderr)
