#!/usr/bin/env bash
# Executes every notebook and writes a Markdown copy with its outputs and plots to
# docs/notebooks, so that they read on the web. Needs the notebooks extra:
#   pip install ".[notebooks]" && bash notebooks/render.sh
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf docs/notebooks
jupyter nbconvert --to markdown --execute --output-dir docs/notebooks notebooks/*.ipynb
