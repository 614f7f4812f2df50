#!/usr/bin/env python3
"""Draws a trace written by ProcedureProfiler.writeChromeTrace(to:) (or `steps --trace`) as an
SVG timeline.

By default there is one row per step (one per child of the trace's outermost group; one per
procedure when there is no single outermost group), and everything a step ran is drawn on
its row: the time it waited for its dependencies, conditions or a slot (pale), the time it
held its slot (a light tint), each try that ran (solid: green when it succeeded, red when it
failed, grey when it was stopped) and each back-off wait between tries (amber: a
RepeatProcedure's waits, named "... wait N"). A `steps` trace also says how each step ended
(`otherData.steps`): a step that was up to date and one skipped by its `when` get colours of
their own. `--all` draws a row per procedure instead, indented under its group.

It reads the lifetime tracks of the trace (the async `b`/`e` events with their `waiting` and
`running` phases), so it draws exactly what Perfetto shows under the process. Standard library
only.

    scripts/render-trace.py trace.json timeline.svg [--all] [--hide REGEX] [--title TEXT]
"""
import argparse
import html
import json
import re
import sys

ROW = 18
LABEL_WIDTH = 220
CHART_WIDTH = 680
TOP = 44
COLORS = {
    "waiting": "#dfe6ee", "held": "#e9f3ec", "ok": "#3a9a5b", "failed": "#d1493f", "ignored": "#e08a2e",
    "cancelled": "#9a9a9a", "backoff": "#f2b134", "up to date": "#4a7fc1", "skipped": "#b3a5d6",
}
WAIT = re.compile(r" wait \d+$")
# How `steps` words an outcome (otherData.steps) -> a colour above.
STEP_OUTCOMES = {"ok": "ok", "failed": "failed", "failed (ignored)": "ignored", "stopped": "cancelled",
                 "up to date": "up to date", "skipped": "skipped"}


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


def step_rows(entries, outcomes):
    """A row per step: the children of the single outermost group, each with its descendants."""
    roots = [entry for entry in entries if len(entry["path"]) == 1]
    depth = 2 if len(roots) == 1 and any(len(entry["path"]) > 1 for entry in entries) else 1
    rows = sorted((entry for entry in entries if len(entry["path"]) == depth), key=lambda entry: entry["start"])
    parents = {tuple(entry["path"][:-1]) for entry in entries}
    for row in rows:
        prefix = row["path"]
        row["descendants"] = [entry for entry in entries
                              if len(entry["path"]) > depth and entry["path"][:depth] == prefix]
        for entry in row["descendants"]:
            entry["leaf"] = tuple(entry["path"]) not in parents
        step = outcomes.get(prefix[-1], {})
        row["step_outcome"] = STEP_OUTCOMES.get(step.get("outcome"))
        if step.get("reason"):
            row["errors"] = [step["reason"]]
    return rows


def all_rows(entries):
    """Every procedure a row, depth-first: children after their group, siblings by start."""
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
    for entry in ordered:
        entry["descendants"] = []
    return ordered


def render(rows, title, indent):
    everything = rows + [d for row in rows for d in row["descendants"]]
    start = min(entry["start"] for entry in everything)
    end = max(entry["end"] for entry in everything)
    scale = CHART_WIDTH / max(end - start, 1.0)

    def x(ts):
        return LABEL_WIDTH + (ts - start) * scale

    def bar(kind, begin, finish, y, minimum=1.0, inset=3):
        rounded = "" if kind in ("waiting", "held") else ' rx="2"'
        return (f'<rect class="{kind.replace(" ", "-")}" x="{x(begin):.1f}" y="{y + inset}" '
                f'width="{max((finish - begin) * scale, minimum):.1f}" height="{ROW - 2 * inset}" '
                f'fill="{COLORS[kind]}"{rounded}/>')

    height = TOP + ROW * len(rows) + 30
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
    for index, row in enumerate(rows):
        y = TOP + index * ROW
        name = row["path"][-1]
        outcome = row.get("step_outcome") or row["outcome"]
        tooltip = name + (": " + "; ".join(row["errors"]) if row["errors"] else "")
        out.append(f'<g class="row" data-name="{html.escape(name)}" data-outcome="{html.escape(outcome)}">'
                   f'<title>{html.escape(tooltip)}</title>')
        out.append(f'<text x="{10 + indent(row)}" y="{y + 12}">{html.escape(name)}</text>')
        if outcome in ("up to date", "skipped"):
            # It never ran: what it waited for, then a mark where it finished, in its own colour.
            for begin, finish in row["phases"].get("waiting", []):
                out.append(bar("waiting", begin, finish, y, minimum=0.5))
            out.append(bar(outcome, row["end"], row["end"], y, minimum=4))
            out.append("</g>")
            continue
        for begin, finish in row["phases"].get("waiting", []):
            out.append(bar("waiting", begin, finish, y, minimum=0.5))
        running = row["phases"].get("running", [])
        if not row["descendants"]:
            for begin, finish in running:
                out.append(bar(outcome if outcome in COLORS else "ok", begin, finish, y, minimum=1.5))
        else:
            for begin, finish in running:
                out.append(bar("held", begin, finish, y, minimum=0.5, inset=2))
            for entry in sorted(row["descendants"], key=lambda entry: entry["start"]):
                kind = "backoff" if WAIT.search(entry["path"][-1]) else entry["outcome"] if entry.get("leaf") else None
                for begin, finish in entry["phases"].get("running", []) if kind else []:
                    out.append(bar(kind, begin, finish, y, minimum=1.5))
        out.append("</g>")
    legend_y = height - 12
    legend = [("waiting", "waiting"), ("held", "holding a slot"), ("ok", "running"), ("failed", "failed"),
              ("backoff", "back-off before a retry"), ("cancelled", "stopped"), ("up to date", "up to date"),
              ("skipped", "skipped")]
    lx = 10
    for key, text in legend:
        out.append(f'<rect x="{lx}" y="{legend_y - 9}" width="12" height="10" fill="{COLORS[key]}"/>')
        out.append(f'<text x="{lx + 16}" y="{legend_y}">{html.escape(text)}</text>')
        lx += 22 + 6.0 * len(text)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace")
    parser.add_argument("svg")
    parser.add_argument("--all", action="store_true", help="a row per procedure, indented under its group")
    parser.add_argument("--hide", help="with --all: leave out procedures whose name matches this regular expression")
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
    outcomes = document.get("otherData", {}).get("steps", {})
    if options.all:
        rows = all_rows(entries)
        for row in rows:
            row["step_outcome"] = STEP_OUTCOMES.get(outcomes.get(row["path"][-1], {}).get("outcome"))
        svg = render(rows, options.title, lambda row: 12 * (len(row["path"]) - 1))
    else:
        svg = render(step_rows(entries, outcomes), options.title, lambda row: 0)
    with open(options.svg, "w", encoding="utf-8") as file:
        file.write(svg)


if __name__ == "__main__":
    main()
