#!/usr/bin/env bash
# Set up everything the test suite needs on a fresh machine, then run every test
# (fast, slow and browser). This is the README's test command; .ci/run calls it.
set -euo pipefail
cd "$(dirname "$0")/.."

export UV_PYTHON_DOWNLOADS=never   # use the machine's Python 3.11; never download one
python3 -m pip install --quiet --disable-pip-version-check "uv==0.13.9"
python3 -m uv sync --locked --python python3.11

# Browser tests drive Debian's Chromium; Playwright's own browser download is never used.
if [ ! -x /usr/bin/chromium ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq chromium >/dev/null
fi

.venv/bin/citavial model-setup   # assemble + sha256-check the default GGUF once (worker tests use it)
.venv/bin/citavial build
exec .venv/bin/python -m pytest -m "" -q "$@"
