#!/usr/bin/env python3
"""Summarise one benchmark run: timing table, item counts, node-id agreement.

    python3 bench/compare.py RESULTS_DIR [--examples 12]

Reads RESULTS_DIR/<tool>.json written by bench/timeit.py (and the captured
stdout of each tool's last run) for the tools proctor-json, proctor, pytest,
rtest (whichever are present), prints a Markdown report and writes it to
RESULTS_DIR/results.md.  Full disagreement lists go to
RESULTS_DIR/{pytest_only,proctor_only,rtest_pytest_only,rtest_only}.txt and
RESULTS_DIR/<tool>_functions_pytest_only.txt (test functions the tool missed
entirely).

Node-id agreement (proctor vs pytest):
  S = proctor JSON items whose "dynamic" is null; D = the functions (node id
  before "[") of proctor's dynamic items; P = node ids printed by
  ``pytest --collect-only -q``.  Items of D's functions are left out of both
  sides (proctor says honestly it cannot know them), and
  agreement = |S ∩ P| / |S ∪ P| on what is left.  "pytest items matched" is
  |S ∩ P| / |P| over all of pytest's items, dynamic ones included.
Marker agreement (only when RESULTS_DIR/pytest-dump.json exists, written by
``bench/run.sh --markers`` through tests/harness/dump_items.py): per common
static item, proctor's markers vs pytest's ``item.iter_markers()``, in order;
a non-literal value on either side ({"expr": ...}) matches anything.
rtest is scored the same way, its "rtest-cannot-expand" functions playing the
role of D.  Function-level agreement compares the sets of node ids cut at "["
(every item of each tool, dynamic ones included).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import OrderedDict
from pathlib import Path

TOOLS = ["proctor-json", "proctor", "rtest", "pytest"]


def base(nodeid: str) -> str:
    return nodeid.split("[", 1)[0]


def load(results: Path, name: str):
    p = results / f"{name}.json"
    if not p.exists():
        return None
    data = json.loads(p.read_text())
    data["out"] = Path(data["stdout"]).read_text(encoding="utf-8", errors="replace")
    data["err"] = Path(data["stderr"]).read_text(encoding="utf-8", errors="replace")
    return data


def parse_proctor_json(text: str):
    doc = json.loads(text)
    static = [i["nodeid"] for i in doc["items"] if i.get("dynamic") is None]
    dynamic = [i for i in doc["items"] if i.get("dynamic") is not None]
    return doc, static, dynamic


def parse_pytest(text: str):
    ids = [ln for ln in text.splitlines() if "::" in ln and not ln.startswith(("ERROR", "FAILED", "_"))]
    m = re.search(r"(\d+) tests? collected", text)
    collected = int(m.group(1)) if m else None
    e = re.search(r"(\d+) errors?", text.splitlines()[-1] if text.strip() else "")
    errors = int(e.group(1)) if e else 0
    return ids, collected, errors


def parse_rtest(text: str):
    ids, cannot = [], []
    for ln in text.splitlines():
        if ln.startswith("rtest-cannot-expand: "):
            cannot.append(ln.split(": ", 1)[1].strip())
        elif ln.startswith("  ") and "::" in ln:
            ids.append(ln.strip())
    m = re.search(r"collected (\d+) items?", text)
    return ids, cannot, (int(m.group(1)) if m else None)


def agreement(static: list[str], dynamic_bases: set[str], truth: list[str]):
    s = {i for i in static if base(i) not in dynamic_bases}
    p_all = set(truth)
    p = {i for i in p_all if base(i) not in dynamic_bases}
    both = s & p
    union = s | p
    return {
        "agreement": len(both) / len(union) if union else 1.0,
        "matched_of_truth": len(set(static) & p_all) / len(p_all) if p_all else 1.0,
        "truth_excluded": len(p_all - p),
        "common": len(both),
        "truth_only": sorted(p - s),
        "tool_only": sorted(s - p),
        "order": order_agreement([i for i in static if i in both], [i for i in truth if i in both]),
    }


def order_agreement(a: list[str], b: list[str]):
    """Share of files whose common items come in the same order; same file order?"""
    def by_file(seq):
        d = OrderedDict()
        for i in seq:
            d.setdefault(i.split("::", 1)[0], []).append(i)
        return d
    fa, fb = by_file(a), by_file(b)
    same = sum(1 for f in fa if fa[f] == fb.get(f))
    return {"files": len(fa), "files_same_order": same, "file_order_same": list(fa) == list(fb)}


def has_expr(v) -> bool:
    if isinstance(v, dict):
        return set(v) == {"expr"} or any(has_expr(x) for x in v.values())
    if isinstance(v, list):
        return any(has_expr(x) for x in v)
    return False


def norm(v):
    if isinstance(v, dict):
        return tuple(sorted((k, norm(x)) for k, x in v.items()))
    if isinstance(v, list):
        return tuple(norm(x) for x in v)
    return v


def value_match(a, b) -> bool:
    """A non-literal on either side ({"expr": ...}) matches anything."""
    return has_expr(a) or has_expr(b) or norm(a) == norm(b)


def marker_match(pm: dict, dm: dict) -> bool:
    pa, da = pm.get("args", []), dm.get("args", [])
    pk, dk = pm.get("kwargs", {}), dm.get("kwargs", {})
    return (pm["name"] == dm["name"] and len(pa) == len(da)
            and all(value_match(x, y) for x, y in zip(pa, da))
            and set(pk) == set(dk) and all(value_match(pk[k], dk[k]) for k in pk))


def marker_agreement(proctor_doc: dict, dump: dict):
    """Compare each common static item's markers with pytest's iter_markers()."""
    truth = {i["nodeid"]: i["markers"] for i in dump["items"]}
    same = order_only = 0
    differ = []
    for item in proctor_doc["items"]:
        if item.get("dynamic") is not None or item["nodeid"] not in truth:
            continue
        # collect --json version 2: items refer to the marker table.
        pm, dm = [proctor_doc["markers"][i] for i in item["markers"]], truth[item["nodeid"]]
        if len(pm) == len(dm) and all(marker_match(a, b) for a, b in zip(pm, dm)):
            same += 1
            continue
        rest, extra = list(dm), []
        for a in pm:
            for j, b in enumerate(rest):
                if marker_match(a, b):
                    rest.pop(j)
                    break
            else:
                extra.append(a)
        if not extra and not rest:
            order_only += 1
        differ.append((item["nodeid"], extra, rest))
    return same, order_only, differ


def fmt_ms(s: float) -> str:
    return f"{s * 1000:,.0f} ms" if s >= 1 else f"{s * 1000:,.1f} ms"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("results", type=Path)
    ap.add_argument("--examples", type=int, default=12)
    args = ap.parse_args(argv)
    R = args.results
    runs = {t: load(R, t) for t in TOOLS}
    lines: list[str] = []
    w = lines.append

    counts = {}
    notes = []
    pj = runs.get("proctor-json")
    p_static = p_dynamic = None
    if pj:
        try:
            doc, p_static, p_dynamic = parse_proctor_json(pj["out"])
            counts["proctor-json"] = (f"{len(doc['items']):,} ({len(p_dynamic)} dynamic, "
                                      f"{len(doc.get('errors', []))} errors)")
        except (json.JSONDecodeError, KeyError) as exc:
            counts["proctor-json"] = f"unparsable JSON ({exc})"
    if runs.get("proctor"):
        counts["proctor"] = f"{sum(1 for ln in runs['proctor']['out'].splitlines() if '::' in ln):,}"
    py_ids = None
    if runs.get("pytest"):
        py_ids, collected, errors = parse_pytest(runs["pytest"]["out"])
        counts["pytest"] = f"{len(py_ids):,} ({errors} errors)"
        if collected is not None and collected != len(py_ids):
            notes.append(f"pytest summary says {collected} collected, {len(py_ids)} ids parsed")
    rt_ids = rt_cannot = None
    if runs.get("rtest"):
        rt_ids, rt_cannot, rt_collected = parse_rtest(runs["rtest"]["out"])
        counts["rtest"] = f"{len(rt_ids):,} ({len(rt_cannot)} not expandable)"
        if set(runs["rtest"]["returncodes"]) != {0}:
            err_tail = (runs["rtest"]["err"].strip().splitlines() or ["(no stderr)"])[-1]
            notes.append(f"rtest exit codes {sorted(set(runs['rtest']['returncodes']))}: {err_tail}")
    for t, r in runs.items():
        if r and t != "rtest" and set(r["returncodes"]) != {0}:
            tail = (r["err"].strip().splitlines() or ["(no stderr)"])[-1]
            notes.append(f"{t} exit codes {sorted(set(r['returncodes']))}: {tail}")

    ref = runs.get("proctor-json") or runs.get("proctor")
    w("| tool | command | median wall | min wall | peak RSS | items | × proctor --json |")
    w("|---|---|---:|---:|---:|---|---:|")
    for t in TOOLS:
        r = runs.get(t)
        if not r:
            continue
        cmd = " ".join(Path(r["cmd"][0]).name if i == 0 else c for i, c in enumerate(r["cmd"]))
        ratio = f"{r['median_s'] / ref['median_s']:,.1f}×" if ref else "–"
        w(f"| {t} | `{cmd}` | {fmt_ms(r['median_s'])} | {fmt_ms(r['min_s'])} | "
          f"{r['peak_rss_kb'] / 1024:,.1f} MiB | {counts.get(t, '?')} | {ratio} |")
    w("")
    reps = ", ".join(f"{t}: {len(r['runs'])} runs + {len(r['warmup'])} warmup"
                     for t, r in runs.items() if r)
    w(f"Repetitions: {reps}.")
    if runs.get("pytest") and runs["pytest"]["warmup"]:
        w(f"pytest's warmup (first, cold run: no __pycache__ yet) took "
          f"{fmt_ms(runs['pytest']['warmup'][0])}.")
    for base_t in ("proctor-json", "proctor"):
        b = runs.get(base_t)
        if not b:
            continue
        parts = []
        for other in ("pytest", "rtest"):
            o = runs.get(other)
            if o:
                parts.append(f"{other}/{base_t} = {o['median_s'] / b['median_s']:,.1f}× time, "
                             f"{o['peak_rss_kb'] / b['peak_rss_kb']:,.1f}× RSS")
        if parts:
            w(f"- {'; '.join(parts)}")
    for n in notes:
        w(f"- note: {n}")
    w("")

    def report(label, static, dyn_bases, truth, tool_only_file, truth_only_file):
        a = agreement(static, dyn_bases, truth)
        fb_tool = {base(i) for i in static} | dyn_bases
        fb_truth = {base(i) for i in truth}
        fb_common = len(fb_tool & fb_truth)
        pct = (f"{a['agreement'] * 100:.2f}%" if a["common"] or a["tool_only"]
               else f"n/a (no statically expanded {label} items)")
        w(f"**{label} vs pytest node ids**: agreement {pct} "
          f"({a['common']:,} common, {len(a['truth_only']):,} only in pytest, "
          f"{len(a['tool_only']):,} only in {label}; {a['truth_excluded']:,} pytest items "
          f"excluded as belonging to {len(dyn_bases):,} dynamic/unexpandable functions); "
          f"{a['matched_of_truth'] * 100:.2f}% of all pytest items matched exactly.")
        w(f"Function level (node id before '['): {fb_common:,} common, "
          f"{len(fb_truth - fb_tool):,} only in pytest, {len(fb_tool - fb_truth):,} only in {label} "
          f"({fb_common / len(fb_tool | fb_truth) * 100:.2f}% agreement).")
        (R / f"{label}_functions_pytest_only.txt").write_text(
            "".join(i + "\n" for i in sorted(fb_truth - fb_tool)))
        o = a["order"]
        w(f"Order: {o['files_same_order']:,}/{o['files']:,} files list their common items in "
          f"pytest's order; file order {'identical' if o['file_order_same'] else 'differs'}.")
        (R / truth_only_file).write_text("".join(i + "\n" for i in a["truth_only"]))
        (R / tool_only_file).write_text("".join(i + "\n" for i in a["tool_only"]))
        for title, items in ((f"only in pytest ({truth_only_file})", a["truth_only"]),
                             (f"only in {label} ({tool_only_file})", a["tool_only"])):
            if items:
                w("")
                w(f"Examples {title}:")
                w("```")
                step = max(1, len(items) // args.examples)
                for i in items[::step][: args.examples]:
                    w(i)
                w("```")
        w("")
        return a

    if p_static is not None and py_ids is not None:
        report("proctor", p_static, {base(i["nodeid"]) for i in p_dynamic}, py_ids,
               "proctor_only.txt", "pytest_only.txt")
        if p_dynamic:
            reasons = {}
            for i in p_dynamic:
                reasons[i["dynamic"]] = reasons.get(i["dynamic"], 0) + 1
            w("proctor dynamic reasons: " + "; ".join(f"{v}× {k}" for k, v in
                                                     sorted(reasons.items(), key=lambda kv: -kv[1])))
            w("")
    dump_path = R / "pytest-dump.json"
    if p_static is not None and dump_path.exists():
        same, order_only, differ = marker_agreement(doc, json.loads(dump_path.read_text()))
        total = same + len(differ)
        w(f"**proctor vs pytest markers** (common static items; pytest's "
          f"`item.iter_markers()` via tests/harness/dump_items.py; a non-literal value "
          f"on either side matches anything): {same:,}/{total:,} items identical "
          f"({same / total * 100 if total else 100:.2f}%), {order_only:,} differ only in order, "
          f"{len(differ) - order_only:,} differ in content.")
        (R / "marker_diffs.txt").write_text("".join(
            f"{n}\n  only proctor: {json.dumps(a)}\n  only pytest: {json.dumps(b)}\n"
            for n, a, b in differ))
        if differ:
            w("")
            w("Examples (marker_diffs.txt):")
            w("```")
            for n, a, b in differ[:: max(1, len(differ) // args.examples)][: args.examples]:
                w(f"{n}\n  only proctor: {json.dumps(a)}\n  only pytest: {json.dumps(b)}")
            w("```")
        w("")
    if rt_ids is not None and py_ids is not None:
        report("rtest", rt_ids, {base(i) for i in rt_cannot}, py_ids,
               "rtest_only.txt", "rtest_pytest_only.txt")

    text = "\n".join(lines) + "\n"
    (R / "results.md").write_text(text)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
