#!/usr/bin/env bash
# Installs the pinned OpenAPI fuzzer (schemathesis, requirements.txt) into packages/env/schemathesis/.venv,
# where the services' contract tests (schemathesisRun in @a2a-ledger/env/testing) find it.
# Idempotent: does nothing when the venv already holds exactly these requirements.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="$here/.venv"
stamp="$venv/.requirements.sha256"
python="${PYTHON:-python3}"

want="$(sha256sum "$here/requirements.txt" | cut -d' ' -f1)"
if [[ -x "$venv/bin/schemathesis" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
  echo "OpenAPI fuzzer: $("$venv/bin/schemathesis" --version) already installed"
  exit 0
fi

command -v "$python" >/dev/null || { echo "the OpenAPI fuzzer needs $python (Python >= 3.10) on PATH" >&2; exit 2; }
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check --no-input -r "$here/requirements.txt"
echo "$want" > "$stamp"
echo "OpenAPI fuzzer: $("$venv/bin/schemathesis" --version) installed in $venv"
