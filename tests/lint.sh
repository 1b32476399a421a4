#!/usr/bin/env bash
# Lint, import contract and types. Run by tests/run_all.sh before the test suite.
#   ruff: pyflakes, pycodestyle errors, bugbear, import order, absolute imports only, the old top-level
#         names `build`/`worker` banned;
#   import-linter: citavial.build never imports citavial.worker;
#   mypy: every module of both packages (citavial.build, citavial.worker).
# import-linter and mypy read files, not the editable install's import hook, so they get a
# throw-away tree where citavial/build and citavial/worker are links to our folders.
set -euo pipefail
cd "$(dirname "$0")/.."
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
mkdir "$tree/citavial"
ln -s "$PWD/build" "$tree/citavial/build"
ln -s "$PWD/worker" "$tree/citavial/worker"

.venv/bin/ruff check .
(cd "$tree" && PYTHONPATH="$tree" "$OLDPWD/.venv/bin/lint-imports" --config "$OLDPWD/pyproject.toml")
(cd "$tree" && MYPYPATH="$tree" "$OLDPWD/.venv/bin/mypy" --config-file "$OLDPWD/pyproject.toml" \
    --cache-dir "$tree/.mypy_cache" \
    -p citavial.build -p citavial.worker)
