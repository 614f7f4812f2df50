#!/usr/bin/env bash
# Renders the documentation with DocC (it ships with the Swift toolchain): the symbol graph of
# the Procedures module plus the guides in Documentation/, which stay plain Markdown in the
# repository. Links between guides are written as relative Markdown links there (they work on
# a repository page) and turned into DocC links here (scripts/guide-for-docc.pl). Output:
# .build/docs (a static site), or the directory given as $1.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-.build/docs}"
work=.build/docs-work
rm -rf "$work" "$out"
mkdir -p "$work/symbol-graphs" "$work/Procedures.docc"
# A scratch path of its own, so the symbol graphs are written even when the ordinary build
# is up to date. The futures live in their own target (ProceduresFutures) but are one
# library to users (`import Procedures` re-exports them, so its graph holds them); the
# network and process procedures' graphs go into the same site.
graphs=.build-docs/symbol-graphs
mkdir -p "$graphs"
for target in ProceduresNetwork ProceduresProcess; do
    swift build --target "$target" --scratch-path .build-docs -Xswiftc -emit-symbol-graph \
        -Xswiftc -emit-symbol-graph-dir -Xswiftc "$PWD/$graphs" >/dev/null
done
cp "$graphs"/Procedures*.json "$work/symbol-graphs/"
# The Procedures graph already holds the futures (it re-exports them): with the futures'
# own graph as well, DocC would find each futures symbol in two modules and put it under
# either, from run to run.
rm -f "$work/symbol-graphs"/ProceduresSupport*.json "$work/symbol-graphs"/ProceduresFutures*.json
cp Documentation/Procedures.docc/* "$work/Procedures.docc/"
for guide in Documentation/*.md; do
    # [Title](Guide.md#anchor) -> [Title](doc:Guide#Heading), images -> catalog resources.
    scripts/guide-for-docc.pl "$guide" > "$work/Procedures.docc/$(basename "$guide")"
done
# The pictures: drawn again from a fresh run of the demo (with Graphviz's dot where installed;
# the committed copies otherwise).
cp Documentation/Images/* "$work/Procedures.docc/"
scripts/demo-pictures.sh "$work/Procedures.docc" || echo "build-docs: could not draw the pictures again; using the committed ones" >&2
rm -f "$work/Procedures.docc"/*.dot
docc convert "$work/Procedures.docc" \
    --additional-symbol-graph-dir "$work/symbol-graphs" \
    --fallback-display-name Procedures --fallback-bundle-identifier org.procedures.Procedures \
    --output-path "$out"
echo "Documentation written to $out (\`make docs-serve\` serves it at http://127.0.0.1:8000/documentation/procedures)"
