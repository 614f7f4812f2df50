#!/usr/bin/env python3
"""Draws a trace written by ProcedureProfiler.writeChromeTrace(to:) (or `steps --trace`) as an
SVG timeline: a row per procedure, indented under its group, its waiting time pale and its
running time solid (green when it succeeded, red when it failed, grey when it was cancelled).

It reads the lifetime tracks of the trace (the async `b`/`e` events with their `waiting` and
`running` phases), so it draws exactly what Perfetto shows under the process. Standard library
only.

    scripts/render-trace.py trace.json timeline.svg [--hide REGEX] [--title TEXT]
"""
import argparse
import html
import json
import re
import sys

ROW = 18
LABEL_WIDTH = 260
CHART_WIDTH = 640
TOP = 44
COLORS = {"ok": "#3a9a5b", "failed": "#d1493f", "cancelled": "#9a9a9a", "waiting": "#dfe6ee"}


def lifetimes(events):
    """One entry per procedure: path, start, end, waiting and running intervals, outcome."""
    by_id = {}
    for event in events:
        if event.get("cat") != "lifecycle" or event.get("ph") not in ("b", "e"):
            continue
        entry = by_id.setdefault(event["id"], {"phases": {}, "open": {}})
        name = event["name"]
        if name in ("waiting", "running"):
            if event["ph"] == "b":
                entry["open"][name] = event["ts"]
            elif name in entry["open"]:
                entry["phases"].setdefault(name, []).append((entry["open"].pop(name), event["ts"]))
        elif event["ph"] == "b":
            entry["path"] = name.split(" ▸ ")
            entry["start"] = event["ts"]
            args = event.get("args", {})
            entry["outcome"] = (
                "cancelled" if args.get("cancelled") else "failed" if args.get("errors") else "ok"
            )
            entry["errors"] = args.get("errors", [])
        else:
            entry["end"] = event["ts"]
    return [entry for entry in by_id.values() if "path" in entry and "end" in entry]


def render(entries, title):
    start = min(entry["start"] for entry in entries)
    end = max(entry["end"] for entry in entries)
    scale = CHART_WIDTH / max(end - start, 1.0)

    def x(ts):
        return LABEL_WIDTH + (ts - start) * scale

    # Depth-first by path, children after their group, siblings by start time.
    entries.sort(key=lambda entry: entry["start"])
    children = {}
    for entry in entries:
        children.setdefault(tuple(entry["path"][:-1]), []).append(entry)
    ordered = []

    def visit(path):
        for entry in children.get(path, []):
            ordered.append(entry)
            visit(tuple(entry["path"]))

    visit(())
    if len(ordered) < len(entries):  # entries whose group was not recorded
        ordered += [entry for entry in entries if entry not in ordered]

    height = TOP + ROW * len(ordered) + 30
    width = LABEL_WIDTH + CHART_WIDTH + 20
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'font-family="Helvetica, Arial, sans-serif" font-size="11">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="10" y="18" font-size="13" font-weight="bold">{html.escape(title)}</text>',
    ]
    # A tick every "nice" number of milliseconds.
    span_ms = (end - start) / 1000
    step = next(s for s in (1, 2, 5, 10, 20, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10000, 60000)
                if span_ms / s <= 10) if span_ms <= 600000 else span_ms / 10
    tick = 0.0
    while tick <= span_ms:
        tx = x(start + tick * 1000)
        out.append(f'<line x1="{tx:.1f}" y1="{TOP - 6}" x2="{tx:.1f}" y2="{height - 26}" stroke="#eeeeee"/>')
        label = f"{tick / 1000:g} s" if step >= 100 else f"{tick:g} ms"
        out.append(f'<text x="{tx:.1f}" y="{TOP - 10}" fill="#666" text-anchor="middle">{label}</text>')
        tick += step
    for row, entry in enumerate(ordered):
        y = TOP + row * ROW
        depth = len(entry["path"]) - 1
        name = entry["path"][-1]
        tooltip = name + (": " + "; ".join(entry["errors"]) if entry["errors"] else "")
        out.append(f'<g><title>{html.escape(tooltip)}</title>')
        out.append(f'<text x="{10 + 12 * depth}" y="{y + 12}">{html.escape(name)}</text>')
        for begin, finish in entry["phases"].get("waiting", []):
            out.append(f'<rect x="{x(begin):.1f}" y="{y + 3}" width="{max((finish - begin) * scale, 0.5):.1f}" '
                       f'height="{ROW - 6}" fill="{COLORS["waiting"]}"/>')
        for begin, finish in entry["phases"].get("running", []):
            out.append(f'<rect x="{x(begin):.1f}" y="{y + 3}" width="{max((finish - begin) * scale, 1.5):.1f}" '
                       f'height="{ROW - 6}" fill="{COLORS[entry["outcome"]]}" rx="2"/>')
        out.append("</g>")
    legend_y = height - 12
    legend = [("waiting", "waiting (dependencies, conditions, queue)"), ("ok", "running"),
              ("failed", "running, failed"), ("cancelled", "cancelled")]
    lx = 10
    for key, text in legend:
        out.append(f'<rect x="{lx}" y="{legend_y - 9}" width="12" height="10" fill="{COLORS[key]}"/>')
        out.append(f'<text x="{lx + 16}" y="{legend_y}">{html.escape(text)}</text>')
        lx += 22 + 6.2 * len(text)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace")
    parser.add_argument("svg")
    parser.add_argument("--hide", help="leave out procedures whose name matches this regular expression")
    parser.add_argument("--title", default="Procedures timeline")
    options = parser.parse_args()
    with open(options.trace, encoding="utf-8") as file:
        document = json.load(file)
    entries = lifetimes(document.get("traceEvents", []))
    if options.hide:
        hidden = re.compile(options.hide)
        kept = [entry for entry in entries if not hidden.search(entry["path"][-1])]
        # A hidden procedure's children move up to its group.
        for entry in kept:
            entry["path"] = [part for part in entry["path"][:-1] if not hidden.search(part)] + entry["path"][-1:]
        entries = kept
    if not entries:
        sys.exit(f"{options.trace}: no procedure lifetimes in this trace")
    with open(options.svg, "w", encoding="utf-8") as file:
        file.write(render(entries, options.title))


if __name__ == "__main__":
    main()
