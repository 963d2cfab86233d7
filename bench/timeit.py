#!/usr/bin/env python3
"""Tiny benchmark harness: wall time and peak RSS of a command.

    python3 bench/timeit.py --name NAME --cwd DIR --runs N [--warmup W]
                            --out-dir DIR [--env K=V ...] -- CMD ARGS...

Runs CMD W times (warmup, timed but not counted) and then N times, each as a
direct child with stdout/stderr redirected to files (no pipes), and reaps it
with os.wait4() so that ru_maxrss is the peak resident set size of that one
process tree (the child and any descendants it waited for), not a running
maximum over every child this harness ever had.

Writes OUT_DIR/NAME.json::

    {"name", "cmd", "cwd", "runs": [seconds...], "warmup": [seconds...],
     "median_s", "min_s", "max_s", "peak_rss_kb", "rss_kb": [...],
     "returncodes": [...], "stdout": "OUT_DIR/NAME.stdout",
     "stderr": "OUT_DIR/NAME.stderr"}

The stdout/stderr files hold the output of the last run.  Also prints one
summary line.  Exit status is 0 even when the command fails: failures are
data here (see "returncodes").
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path


def run_once(cmd: list[str], cwd: str, env: dict, stdout: Path, stderr: Path, with_cpu: bool = False,
             tree: list | None = None):
    """Wall seconds, peak RSS (KiB) and exit code of one run; with
    `with_cpu`, also its CPU seconds (user + sys, with the children it
    waited for).

    The peak RSS is `ru_maxrss`: the largest of the process tree's
    processes, not their sum. With `tree` (a list), a sampler also reads
    the RSS of every process of the tree from /proc every 20 ms while it
    runs and appends the peak of their *sum* (KiB) to `tree`: the figure
    for a command that runs its work in a child (`proctor run` and its
    pytest), where the largest process is not the whole cost."""
    with open(stdout, "wb") as out, open(stderr, "wb") as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=err,
                                stdin=subprocess.DEVNULL)
        sampler = None
        if tree is not None:
            sampler = TreeSampler(proc.pid)
            sampler.start()
        _, status, rusage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        if sampler is not None:
            sampler.stop()
            # The sampler may miss the last instants; the largest single
            # process is a floor for the tree's sum.
            tree.append(max(sampler.peak_kb, rusage.ru_maxrss))
    if with_cpu:
        return elapsed, rusage.ru_maxrss, proc.returncode, rusage.ru_utime + rusage.ru_stime
    return elapsed, rusage.ru_maxrss, proc.returncode


class TreeSampler(threading.Thread):
    """The peak of the summed RSS of a process and its descendants, read
    from /proc (Linux) every `interval` seconds until `stop()`."""

    def __init__(self, root: int, interval: float = 0.02):
        super().__init__(daemon=True)
        self.root = root
        self.interval = interval
        self.peak_kb = 0
        self.page_kb = os.sysconf("SC_PAGE_SIZE") // 1024
        self.done = threading.Event()

    def stop(self):
        self.done.set()
        self.join()

    def run(self):
        while not self.done.is_set():
            self.peak_kb = max(self.peak_kb, self.sample())
            self.done.wait(self.interval)

    def sample(self) -> int:
        parents = {}
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as f:
                    stat = f.read()
            except OSError:
                continue
            # The command name is in parentheses and may hold spaces.
            fields = stat[stat.rfind(b")") + 2:].split()
            parents[int(entry.name)] = int(fields[1])
        tree = {self.root}
        grew = True
        while grew:
            grew = False
            for pid, ppid in parents.items():
                if ppid in tree and pid not in tree:
                    tree.add(pid)
                    grew = True
        total = 0
        for pid in tree:
            try:
                with open(f"/proc/{pid}/statm", "rb") as f:
                    total += int(f.read().split()[1]) * self.page_kb
            except (OSError, IndexError, ValueError):
                continue
        return total


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="wall time + peak RSS of a command")
    ap.add_argument("--name", required=True)
    ap.add_argument("--cwd", default=".")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--out-dir", type=Path, required=True)
    ap.add_argument("--env", action="append", default=[], help="K=V added to the environment")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    args = ap.parse_args(argv)
    cmd = args.cmd[1:] if args.cmd and args.cmd[0] == "--" else args.cmd
    if not cmd:
        ap.error("no command given")
    env = dict(os.environ)
    for kv in args.env:
        k, _, v = kv.partition("=")
        env[k] = v
    args.out_dir.mkdir(parents=True, exist_ok=True)
    stdout = args.out_dir / f"{args.name}.stdout"
    stderr = args.out_dir / f"{args.name}.stderr"

    warm, times, rss, rcs = [], [], [], []
    for _ in range(args.warmup):
        t, _, _ = run_once(cmd, args.cwd, env, stdout, stderr)
        warm.append(t)
    for _ in range(max(1, args.runs)):
        t, r, rc = run_once(cmd, args.cwd, env, stdout, stderr)
        times.append(t)
        rss.append(r)
        rcs.append(rc)

    result = {
        "name": args.name,
        "cmd": cmd,
        "cwd": os.path.abspath(args.cwd),
        "runs": times,
        "warmup": warm,
        "median_s": statistics.median(times),
        "min_s": min(times),
        "max_s": max(times),
        "peak_rss_kb": max(rss),
        "rss_kb": rss,
        "returncodes": rcs,
        "stdout": str(stdout),
        "stderr": str(stderr),
    }
    (args.out_dir / f"{args.name}.json").write_text(json.dumps(result, indent=1) + "\n")
    print(f"{args.name:>16}: median {result['median_s'] * 1000:10.1f} ms  "
          f"min {result['min_s'] * 1000:10.1f} ms  peak RSS {max(rss) / 1024:8.1f} MiB  "
          f"runs {len(times)} (+{len(warm)} warmup)  rc {sorted(set(rcs))}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
