#!/usr/bin/env bash
# What the alerting rules' test needs on the machine: promtool, from Debian's prometheus package
# (`promtool test rules` runs ops/prometheus/*.test.yml). Installs the package only when promtool is missing.
set -euo pipefail

if ! command -v promtool >/dev/null; then
  echo "setup-promtool: installing prometheus (for promtool)"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends prometheus >/dev/null
fi
command -v promtool >/dev/null || { echo "setup-promtool: promtool still missing"; exit 2; }
echo "setup-promtool: $(promtool --version 2>&1 | head -n 1)"
