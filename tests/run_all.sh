#!/usr/bin/env bash
# Set up everything the test suite needs on a fresh machine, then run every check: lint, import
# contract and types (tests/lint.sh), then every test (fast, slow, browser, adversarial). This is
# the README's test command; .ci/run calls it.
set -euo pipefail
cd "$(dirname "$0")/.."

export UV_PYTHON_DOWNLOADS=never   # use the machine's Python 3.11; never download one
python3 -m pip install --quiet --disable-pip-version-check "uv==0.13.9"
python3 -m uv sync --locked --python python3.11
# Bytecode once, here: the suite starts hundreds of Python processes (builds, workers, CLI runs),
# and without .pyc files -- uv installs none, and PYTHONDONTWRITEBYTECODE=1 stops Python writing
# them -- each compiles its imports again (~0.3 s of CPU per process on this 2-core machine).
# compileall skips what is up to date; -q prints only a file that does not compile.
.venv/bin/python -m compileall -q -j 0 build worker tests \
  "$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_path("purelib"))')"

# Browser tests drive Debian's Chromium; Playwright's own browser download is never used.
# Debian's nginx: the scale-out test (tests/adversarial/test_scale_out.py) and the sub-path
# test serve through it (gzip_static is built in).
missing=""
[ -x /usr/bin/chromium ] || missing="$missing chromium"
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing="$missing nginx"
command -v pdftotext >/dev/null 2>&1 || missing="$missing poppler-utils"  # RD 818/2009 fidelity tests
command -v npm >/dev/null 2>&1 || missing="$missing npm"
if [ -n "$missing" ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # Don't let the package start a system nginx on port 80: the tests start their own.
  policy=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    policy=/usr/sbin/policy-rc.d
    printf '#!/bin/sh\nexit 101\n' > "$policy" && chmod +x "$policy"
  fi
  # shellcheck disable=SC2086
  apt-get install -y -qq $missing >/dev/null
  [ -z "$policy" ] || rm -f "$policy"
fi

# axe-core (the accessibility test, tests/browser/test_axe.py) from its npm package, pinned by
# package-lock.json, into the git-ignored node_modules/: read from disk, no network at test time.
npm ci --no-audit --no-fund --loglevel=error
# Lint (ruff, import-linter, mypy: one core) runs beside the steps below (the model's check, the
# cold build, the validators, the page budget: one core each), so the second core is not idle;
# its output is shown, and a failure stops the run, before the tests start.
lint_log=$(mktemp)
bash tests/lint.sh >"$lint_log" 2>&1 &
lint_pid=$!
trap '[ -z "$lint_pid" ] || kill "$lint_pid" 2>/dev/null || true; rm -f "$lint_log"' EXIT
.venv/bin/citavial model-setup   # assemble + sha256-check the default GGUF once (worker tests use it)
.venv/bin/citavial build --no-cache   # CI proves the build from scratch; tests/test_stage_cache.py proves the cache
# The golden set (append-only, new fields), the dev-clean hooks (decontaminated against both
# golden splits; dev measurements read them) and the product's hooks (against the sealed test
# split), checked against this build's passages.
.venv/bin/python golden/validate.py golden/golden-v2.jsonl dist/allowlist.json --base golden/golden-v1.jsonl | tail -n 1
.venv/bin/python corpus/hooks/validate.py corpus/hooks/hooks-v3.jsonl dist/allowlist.json --golden golden/golden-v2.jsonl --splits test,dev | tail -n 1
.venv/bin/python corpus/hooks/validate.py corpus/hooks/hooks-v2.jsonl dist/allowlist.json --golden golden/golden-v2.jsonl --splits test | tail -n 1
for v in 4 5 6 7; do
  .venv/bin/python corpus/hooks/validate.py corpus/hooks/hooks-v$v.jsonl dist/allowlist.json --golden golden/golden-v2.jsonl --splits test,dev --allow-uncovered | tail -n 1
done
# The page budget (issue 15): prints bytes, requests and FCP per page type (asserts nothing).
.venv/bin/python tests/bench/bench_pages.py --runs 5
lint_ok=0
wait "$lint_pid" || lint_ok=$?
lint_pid=""
cat "$lint_log"
if [ "$lint_ok" -ne 0 ]; then
  echo "tests/lint.sh failed (exit $lint_ok)" >&2
  exit 1
fi
# Three workers (pytest-xdist) on the two cores: the suite waits on page loads, servers and
# subprocesses more than it computes (two workers kept the cores only 122 % busy), so a third
# fills the gaps. Each module's tests stay on one worker, in order, browser modules included (each
# worker drives its own Chromium); the real-model tests are one group (tests/conftest.py: _group).
# The longest groups start first (conftest.py: LONGEST; --no-loadscope-reorder keeps that
# order). Extra arguments pass through ("-n 0" runs in one process). The 20 slowest tests are
# listed at the end (--durations=20): what to look at first when the suite grows.
.venv/bin/python -m pytest -m "" -q -n 3 --dist loadgroup --no-loadscope-reorder --durations=20 "$@"

# No test may write into tracked files.
if [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
  echo "tests changed tracked files:" >&2
  git status --porcelain --untracked-files=no >&2
  exit 1
fi
