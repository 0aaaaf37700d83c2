#!/usr/bin/env bash
# make test's runner: `.ci/stages.sh MAKE STAGE...` makes each stage in turn, stops at the first that fails,
# and prints every stage's wall time at the end (issue 32: "`make test` prints each stage's time at the end").
set -uo pipefail
make_command=$1
shift
report=""
total=0
number=0
for stage in "$@"; do
    number=$((number + 1))
    printf '\nmake test: stage %d of %d, %s\n' "$number" "$#" "$stage"
    start=$(date +%s)
    $make_command --no-print-directory "$stage"
    status=$?
    took=$(($(date +%s) - start))
    total=$((total + took))
    report+=$(printf '\n  %-12s %4d s' "$stage" "$took")
    if [ "$status" -ne 0 ]; then
        printf '\nmake test: stage %s failed after %d s; the stages run:%s\n' "$stage" "$took" "$report" >&2
        exit "$status"
    fi
done
printf '\nmake test: every stage passed in %d s (%d min):%s\n' "$total" $((total / 60)) "$report"
