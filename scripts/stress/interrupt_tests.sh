#!/usr/bin/env bash
# The interrupt tests, N runs in a row each (default 50), with both cores kept busy by two
# CPU hogs: the controller's file after SIGINT (polling sampler) and the router's
# in-process monitor after Ctrl-C. Stops at the first failure and keeps its log.
#   scripts/stress/interrupt_tests.sh [N]
set -uo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-50}
yes >/dev/null & hog1=$!
yes >/dev/null & hog2=$!
trap 'kill $hog1 $hog2' EXIT
tests=(
    "tests/controller/test_sampling.py::test_parquet_is_complete_after_an_interrupt"
    "tests/controller/test_recording.py::test_the_file_is_complete_after_ctrl_c"
)
status=0
for test in "${tests[@]}"; do
    passed=0
    for i in $(seq 1 "$runs"); do
        log=$(mktemp /tmp/p4aqm-stress-XXXX.log)
        if .venv/bin/python -m pytest -q -p no:cacheprovider "$test" >"$log" 2>&1; then
            passed=$((passed + 1))
            rm -f "$log"
        else
            echo "run $i failed: $log"
            status=1
            break
        fi
    done
    echo "$test: $passed of $runs in a row (load average now $(cut -d' ' -f1 /proc/loadavg))"
done
exit $status
