"""The scripted behaviour shared by every mesh worker (the same directives as the JS workers).

Directives are words in the first text part of a message:

- ``need-input``: the task stops in INPUT_REQUIRED until a follow-up message to the same task
  supplies the input; then it completes with an artifact.
- ``chunks=N`` (1-20): the artifact is streamed as N artifact-update chunks.
- ``delay-ms=N`` (0-60000): the worker waits N ms, while WORKING, before it produces the artifact.

Anything else is the question; a message without directives completes directly.
"""

import re
from dataclasses import dataclass

MAX_CHUNKS = 20
MAX_DELAY_MS = 60_000

_DIRECTIVE = re.compile(r"(?:^|\s)(need-input|chunks=(\d{1,6})|delay-ms=(\d{1,9}))(?=\s|$)")


@dataclass
class Script:
    need_input: bool = False
    chunks: int = 1
    delay_ms: int = 0
    question: str = ""


def parse_script(text: str) -> Script:
    script = Script()

    def take(match: re.Match[str]) -> str:
        word, chunks, delay = match.group(1), match.group(2), match.group(3)
        if word == "need-input":
            script.need_input = True
        elif chunks is not None:
            script.chunks = min(MAX_CHUNKS, max(1, int(chunks)))
        elif delay is not None:
            script.delay_ms = min(MAX_DELAY_MS, int(delay))
        return " "

    script.question = " ".join(_DIRECTIVE.sub(take, text).split())
    return script


def split_into_chunks(text: str, n: int) -> list[str]:
    count = max(1, min(n, len(text)))
    if not text:
        return [""]
    size = -(-len(text) // count)
    return [text[i : i + size] for i in range(0, len(text), size)]
