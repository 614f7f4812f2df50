#!/usr/bin/env bash
# Fuzzes the `steps` pipeline parser and checker with libFuzzer for FUZZ_SECONDS (default 60).
# See Fuzz/README.md. Exits non-zero, naming the input, if the fuzzer finds a crash, a hang or
# a broken invariant; that input then belongs in Fuzz/regressions/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-60}
work=.build/fuzz
mkdir -p "$work/corpus" "$work/findings"
# The parser, checker, plan and graph (StepsCore's Text/ and Pipeline/ folders, which use only
# Foundation) are compiled together with the entry point: -sanitize=fuzzer instruments them
# for coverage and links libFuzzer's main.
sources=(Fuzz/*.swift Sources/StepsCore/Text/*.swift Sources/StepsCore/Pipeline/*.swift)
swiftc -sanitize=fuzzer -parse-as-library -O -g "${sources[@]}" -o "$work/pipeline-fuzz"
# Swift's own crash handler would otherwise take the signal before libFuzzer can save the input.
export SWIFT_BACKTRACE=enable=no
# The corpus grows in .build; the examples and the regressions seed it.
echo "fuzz: running for $seconds s"
status=0
"$work/pipeline-fuzz" -max_total_time="$seconds" -timeout=10 -max_len=8192 \
    -dict=Fuzz/pipeline.dict -artifact_prefix="$work/findings/" -print_final_stats=1 \
    "$work/corpus" Examples Fuzz/regressions >"$work/last-run.log" 2>&1 || status=$?
grep -E '^(#[0-9]+.*(INITED|DONE)|Done|stat::number_of_executed_units)|ERROR|Fatal error|deadly|Test unit written' "$work/last-run.log" || true
if [ "$status" -ne 0 ]; then
    echo "fuzz: the fuzzer found a problem (log: $work/last-run.log); add the input from $work/findings/ to Fuzz/regressions/"
    exit 1
fi
echo "fuzz: no crash, hang or broken invariant in $seconds s"
