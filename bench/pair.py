#!/usr/bin/env python3
"""Two commands timed side by side, interleaved: wall time and peak RSS.

    python3 bench/pair.py --cwd DIR --runs N [--warmup W] [--before SHELL] \
        --out-dir DIR --name A -- CMD ARGS... --- --name B -- CMD ARGS...

Each round runs both commands once, one right after the other, swapping
which goes first every round, so that a change in the machine's load
during the benchmark weighs on both alike (on a shared 2-core VM the load
drifts by tens of percent within a minute; timing all runs of one tool and
then all runs of the other turns that drift into a false ratio).

Writes OUT_DIR/<name>.json for each, in the format of bench/timeit.py
(runs, median_s, min_s, peak_rss_kb, returncodes, stdout, stderr), and
OUT_DIR/pair.json with the per-round ratios B/A, their median (the figure
to report) and a 95% bootstrap confidence interval of that median (rounds
resampled with replacement, 10,000 times, fixed seed): a bar such as
"within 3%" is met when the interval's upper end is under 1.03, not when
one median happens to be. Also the ratio of CPU time (user + sys, the
command and the children it waited for). Prints one line per command and
the ratios.

`--before SHELL` runs a shell command (untimed, in --cwd) before every
run of either command, to start each from the same state (a history
database restored from a snapshot, say).

`--tree-rss` also samples the summed RSS of each command's whole process
tree (bench/timeit.py's TreeSampler: /proc every 20 ms), reported as
tree_peak_rss_kb / tree_rss_kb and as the ratio of the medians B/A: the
memory of a command that works in a child (`proctor run` and its pytest)
is the sum, where ru_maxrss is only the largest process.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timeit import run_once  # noqa: E402  (bench/timeit.py)


def median_interval(values: list[float], level: float = 0.95, resamples: int = 10_000) -> tuple[float, float]:
    """A bootstrap confidence interval of the median of `values`."""
    rng = random.Random(0)
    medians = sorted(statistics.median(rng.choices(values, k=len(values))) for _ in range(resamples))
    tail = (1 - level) / 2
    return medians[int(tail * resamples)], medians[min(resamples - 1, int((1 - tail) * resamples))]


def parse(argv: list[str]):
    ap = argparse.ArgumentParser(description="interleaved wall time + peak RSS of two commands")
    ap.add_argument("--cwd", default=".")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--before", help="a shell command run (untimed) before every run")
    ap.add_argument("--out-dir", type=Path, required=True)
    ap.add_argument("--tree-rss", action="store_true", help="also sample the summed RSS of each process tree")
    if "---" not in argv:
        ap.error("give two commands separated by ---")
    split = argv.index("---")
    head, second = argv[:split], argv[split + 1:]
    args, first = ap.parse_known_args(head)
    commands = []
    for part in (first, second):
        if len(part) < 4 or part[0] != "--name" or part[2] != "--":
            ap.error("each command is: --name NAME -- CMD ARGS...")
        commands.append((part[1], part[3:]))
    return args, commands


def main(argv: list[str] | None = None) -> int:
    args, commands = parse(sys.argv[1:] if argv is None else argv)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    results = {name: {"name": name, "cmd": cmd, "cwd": args.cwd, "runs": [], "warmup": [], "rss_kb": [], "tree_rss_kb": [], "cpu_s": [], "returncodes": []}
               for name, cmd in commands}
    for round_ in range(args.warmup + args.runs):
        order = commands if round_ % 2 == 0 else list(reversed(commands))
        for name, cmd in order:
            out = args.out_dir / f"{name}.stdout"
            err = args.out_dir / f"{name}.stderr"
            if args.before:
                subprocess.run(args.before, shell=True, cwd=args.cwd, env=env, check=True)
            tree = [] if args.tree_rss else None
            seconds, rss_kb, code, cpu = run_once(cmd, args.cwd, env, out, err, with_cpu=True, tree=tree)
            r = results[name]
            if round_ < args.warmup:
                r["warmup"].append(seconds)
                continue
            if tree:
                r["tree_rss_kb"].extend(tree)
            r["runs"].append(seconds)
            r["rss_kb"].append(rss_kb)
            r["cpu_s"].append(cpu)
            r["returncodes"].append(code)
    (a, _), (b, _) = commands
    for name, r in results.items():
        r.update(median_s=statistics.median(r["runs"]), min_s=min(r["runs"]), max_s=max(r["runs"]),
                 peak_rss_kb=max(r["rss_kb"]), stdout=str(args.out_dir / f"{name}.stdout"),
                 stderr=str(args.out_dir / f"{name}.stderr"))
        if r["tree_rss_kb"]:
            r.update(tree_peak_rss_kb=max(r["tree_rss_kb"]), tree_median_rss_kb=statistics.median(r["tree_rss_kb"]))
        (args.out_dir / f"{name}.json").write_text(json.dumps(r, indent=2) + "\n")
        print(f"{name:>12}: median {r['median_s'] * 1000:8.1f} ms  min {r['min_s'] * 1000:8.1f} ms  "
              f"peak RSS {r['peak_rss_kb'] / 1024:6.1f} MiB  runs {args.runs} (+{args.warmup} warmup)  "
              f"rc {sorted(set(r['returncodes']))}"
              + (f"  tree RSS peak {r['tree_peak_rss_kb'] / 1024:6.1f} MiB" if r["tree_rss_kb"] else ""), file=sys.stderr)
    ratios = [tb / ta for ta, tb in zip(results[a]["runs"], results[b]["runs"])]
    cpu_ratios = [tb / ta for ta, tb in zip(results[a]["cpu_s"], results[b]["cpu_s"]) if ta > 0]
    low, high = median_interval(ratios)
    pair = {"a": a, "b": b, "ratios_b_over_a": ratios, "median_ratio": statistics.median(ratios),
            "median_ratio_ci95": [low, high], "cpu_ratios_b_over_a": cpu_ratios,
            "median_cpu_ratio": statistics.median(cpu_ratios) if cpu_ratios else None}
    if results[a]["tree_rss_kb"] and results[b]["tree_rss_kb"]:
        pair["tree_rss_ratio"] = results[b]["tree_median_rss_kb"] / results[a]["tree_median_rss_kb"]
        pair["tree_peak_rss_ratio"] = results[b]["tree_peak_rss_kb"] / results[a]["tree_peak_rss_kb"]
    (args.out_dir / "pair.json").write_text(json.dumps(pair, indent=2) + "\n")
    print(f"{b} / {a}, median of {len(ratios)} interleaved rounds: {pair['median_ratio']:.3f}x "
          f"(95% CI {low:.3f}-{high:.3f})", file=sys.stderr)
    if cpu_ratios:
        print(f"{b} / {a}, CPU time (user + sys), median: {pair['median_cpu_ratio']:.3f}x", file=sys.stderr)
    if "tree_rss_ratio" in pair:
        print(f"{b} / {a}, peak RSS of the process tree (sum), median run: {pair['tree_rss_ratio']:.3f}x, "
              f"highest run: {pair['tree_peak_rss_ratio']:.3f}x", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
