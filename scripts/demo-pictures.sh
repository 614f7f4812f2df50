#!/usr/bin/env bash
# Draws the pictures the Observability guide shows, from a real run of `steps` on its bundled
# pipeline: the dependency graph (`--graph`, rendered by Graphviz's `dot` where installed) and
# the timeline (`--trace`, drawn by scripts/render-trace.py). Into the directory given as $1
# (Documentation/Images for the committed copies; the docs build draws its own).
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:?usage: scripts/demo-pictures.sh OUTPUT-DIRECTORY}"
mkdir -p "$out"
out=$(cd "$out" && pwd)
swift build --product steps >/dev/null
steps="$(swift build --show-bin-path)/steps"
run=$(mktemp -d)
trap 'rm -rf "$run"' EXIT
(cd "$run" && "$steps" --plain --graph graph.dot --trace trace.json >/dev/null)
cp "$run/graph.dot" "$out/steps-demo-graph.dot"
if command -v dot >/dev/null; then
    dot -Tsvg "$run/graph.dot" -o "$out/steps-demo-graph.svg"
else
    echo "demo-pictures: Graphviz's dot is not installed (apt-get install graphviz): the graph is left as DOT" >&2
fi
python3 scripts/render-trace.py "$run/trace.json" "$out/steps-demo-timeline.svg" \
    --title 'steps, the bundled pipeline: a trace drawn by scripts/render-trace.py'
echo "Pictures written to $out"
