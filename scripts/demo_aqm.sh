#!/usr/bin/env bash
# The main job's demo: FIFO against RED (30, 90) at 98 % load on the dumbbell, three
# repetitions each, points at once (experiments/studies/demo-fifo-vs-red.yaml, about 7
# minutes), its report, and the verdict (RED − FIFO with its 95 % interval) with the
# paths of the response-time CDF and of the report.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$PWD/.venv/bin
results=${DEMO_RESULTS:-results/demo}

make -s build
rm -rf "$results"  # a fresh run: results of an older experiment file would not mix
"$bin/p4aqm" run experiments/studies/demo-fifo-vs-red.yaml -o "$results" --jobs auto
"$bin/p4aqm" report "$results"
"$bin/python" scripts/demo_verdict.py "$results"
