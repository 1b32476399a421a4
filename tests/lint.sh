#!/usr/bin/env bash
# Lint, import contract and types. Run by tests/run_all.sh before the test suite.
#   ruff: pyflakes, pycodestyle errors, bugbear, import order, absolute imports only, the old top-level
#         names `build`/`worker` banned;
#   import-linter: citavial.build never imports citavial.worker;
#   mypy: the cross-stage models, the text module, the gate, the web publishing stage and the
#         worker's static file server.
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
    -p citavial.build.models -p citavial.build.renames -p citavial.build.text -p citavial.build.gate.verify \
    -p citavial.build.gate.fragments -p citavial.build.paths -p citavial.build.web -p citavial.build.headers \
    -p citavial.build.ingest.markdown -p citavial.build.corpus.norms \
    -p citavial.worker.http.static -p citavial.worker.answer.ask -p citavial.worker.answer.span \
    -p citavial.worker.answer.question -p citavial.worker.answer.decide -p citavial.worker.answer.options \
    -p citavial.worker.answer.cite -p citavial.worker.answer.spanlink -p citavial.worker.lead.generate \
    -p citavial.worker.answer.record -p citavial.worker.eval.scoring -p citavial.worker.eval.exam \
    -p citavial.worker.eval.exam_bank -p citavial.worker.eval.exam_report -p citavial.worker.mcp.rpc)
