#!/usr/bin/env bash
# What the projector's tests need on the machine: PostgreSQL's initdb and pg_ctl (the tests start a
# throwaway server) and Debian's chromium (the browser test). Installs Debian's packages only when
# the binaries are missing.
set -euo pipefail

have_postgres() {
  command -v initdb >/dev/null && command -v pg_ctl >/dev/null && return 0
  compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null && compgen -G "/usr/lib/postgresql/*/bin/pg_ctl" >/dev/null
}

missing=()
have_postgres || missing+=(postgresql)
[ -x /usr/bin/chromium ] || missing+=(chromium)
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup-projector: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
have_postgres || { echo "setup-projector: initdb/pg_ctl still missing"; exit 2; }
[ -x /usr/bin/chromium ] || { echo "setup-projector: /usr/bin/chromium still missing"; exit 2; }
echo "setup-projector: $(/usr/bin/chromium --version 2>/dev/null | head -n 1); PostgreSQL $(ls /usr/lib/postgresql 2>/dev/null | tr '\n' ' ')"
