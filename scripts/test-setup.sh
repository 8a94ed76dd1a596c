#!/usr/bin/env bash
# Everything the tests need beyond `npm ci` and the stack (which `npm test` starts itself), installed when
# missing and left alone when present: the services' OpenAPI fuzzer's (schemathesis), W3's, the Python worker guard's and
# the Python orchestrator client's pinned Python environments, PostgreSQL and Chromium for the projector, and promtool for the alerting rules. Runs
# before `npm test` (npm's pretest), so the README's test command works on a fresh machine; CI runs that
# same command.
set -euo pipefail
cd "$(dirname "$0")/.."
bash packages/env/schemathesis/setup.sh
bash mesh/agent-py/setup.sh
bash packages/worker-guard-py/setup.sh
bash clients/python/setup.sh
bash scripts/setup-projector.sh
bash scripts/setup-promtool.sh
