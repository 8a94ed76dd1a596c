#!/usr/bin/env bash
# Creates clients/python/.venv and installs the pinned requirements into it; the package imports the ingest
# client of packages/worker-guard-py (a2a_ledger_guard.ingest), made importable by a .pth file naming that
# folder. Idempotent: a venv whose stamp matches requirements.txt is left as it is. PYTHON names the
# interpreter (default python3, ≥ 3.10).
set -euo pipefail
cd "$(dirname "$0")"
python=${PYTHON:-python3}
stamp=.venv/.requirements.sha256
want=$(sha256sum requirements.txt | cut -d' ' -f1)
guard_dir=$(cd ../../packages/worker-guard-py && pwd)
pth() { .venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])'; }
if [[ -x .venv/bin/python && -f $stamp && "$(cat "$stamp")" == "$want" && "$(cat "$(pth)/a2a-ledger-guard.pth" 2>/dev/null)" == "$guard_dir" ]]; then
  echo "clients/python/.venv is up to date"
  exit 0
fi
"$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' || { echo "The Python client needs Python >= 3.10 ($python is $("$python" --version 2>&1))" >&2; exit 2; }
[[ -x .venv/bin/python ]] || "$python" -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check --require-virtualenv -r requirements.txt
echo "$guard_dir" > "$(pth)/a2a-ledger-guard.pth"
.venv/bin/python -c 'import a2a_ledger_client' 
echo "$want" > "$stamp"
echo "clients/python/.venv ready ($(.venv/bin/python -c 'import importlib.metadata as m; print("a2a-sdk", m.version("a2a-sdk"))'))"
