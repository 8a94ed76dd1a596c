"""Schemathesis hooks for the projector's API (loaded through SCHEMATHESIS_HOOKS by openapi-fuzz.int.test.ts).

A cursor: the document states its shape (pattern, maxLength), but no schema can say which cursors the
server issued, for which query; a generated one of the right shape almost never carries a valid
signature. Its refusal (400 PROJECTOR_BAD_CURSOR for a signature mismatch or another query's cursor)
is not a schema-valid request rejected, so that failure is set aside and counted on stderr at exit.
A cursor refused as "malformed" stays a failure: then the document's shape and the server disagree.
"""
import atexit
import sys

import schemathesis

set_aside = []


def _unissued_cursor(case, response):
    if response.status_code != 400 or not (case.query or {}).get("cursor"):
        return False
    try:
        body = response.json()
    except ValueError:
        return False
    return body.get("code") == "PROJECTOR_BAD_CURSOR" and "malformed" not in str(body.get("error", ""))


@schemathesis.hook
def filter_failure(context, failure, case, response):
    if failure.code == "ST202" and _unissued_cursor(case, response):
        set_aside.append(case.operation.label)
        return False
    return True


@atexit.register
def _report():
    print(f"projector fuzz hooks: {len(set_aside)} rejection(s) of cursors the server did not issue set aside", file=sys.stderr)
