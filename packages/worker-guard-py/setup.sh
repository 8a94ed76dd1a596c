#!/usr/bin/env bash
# Creates packages/worker-guard-py/.venv and installs the pinned requirements into it. Idempotent: a venv whose
# stamp matches requirements.txt is left as it is. PYTHON names the interpreter (default python3, ≥ 3.10).
set -euo pipefail
cd "$(dirname "$0")"
python=${PYTHON:-python3}
stamp=.venv/.requirements.sha256
want=$(sha256sum requirements.txt | cut -d' ' -f1)
if [[ -x .venv/bin/python && -f $stamp && "$(cat "$stamp")" == "$want" ]]; then
  echo "packages/worker-guard-py/.venv is up to date"
  exit 0
fi
"$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' || { echo "The worker guard needs Python >= 3.10 ($python is $("$python" --version 2>&1))" >&2; exit 2; }
[[ -x .venv/bin/python ]] || "$python" -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check --require-virtualenv -r requirements.txt
echo "$want" > "$stamp"
echo "packages/worker-guard-py/.venv ready ($(.venv/bin/python -c 'import importlib.metadata as m; print("a2a-sdk", m.version("a2a-sdk"))'))"
