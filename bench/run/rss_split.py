#!/usr/bin/env python3
"""Where a command's tree RSS goes: the root process's own and its
descendants' (proctor and its pytest child), sampled from /proc.

    python3 bench/run/rss_split.py [--cwd DIR] -- CMD ARGS...

Prints the root's peak RSS (VmHWM at its last sample), the peak of the
tree's summed RSS, and the root's and the children's RSS at that peak:
what `bench/run/scale.sh`'s tree ratio is made of; and the root's RSS
when its children first held half their peak (for proctor: what it
holds, its collection's own peak freed or not, as pytest grows). A diagnostic, not a
benchmark: one run, no peer.
"""

import argparse
import os
import subprocess
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from timeit import TreeSampler  # noqa: E402  (bench/timeit.py)


def rss_kb(pid: int, key: str) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cwd", default=".")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
    child = subprocess.Popen(cmd, cwd=args.cwd, stdout=subprocess.DEVNULL)
    tree = TreeSampler(child.pid)
    peak = {"tree": 0, "root": 0, "hwm": 0}
    samples = []
    done = threading.Event()

    def sample():
        while not done.is_set():
            total = tree.sample()
            root = rss_kb(child.pid, "VmRSS")
            peak["hwm"] = max(peak["hwm"], rss_kb(child.pid, "VmHWM"))
            samples.append((root, total - root))
            if total > peak["tree"]:
                peak["tree"], peak["root"] = total, root
            done.wait(0.02)

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    code = child.wait()
    done.set()
    thread.join()
    mib = lambda kb: f"{kb / 1024:.1f} MiB"  # noqa: E731
    print(f"exit {code}")
    print(f"root's own peak (VmHWM): {mib(peak['hwm'])}")
    print(f"tree peak (sum): {mib(peak['tree'])}: root {mib(peak['root'])}, children {mib(peak['tree'] - peak['root'])}")
    children = max((c for _, c in samples), default=0)
    half = next(((r, c) for r, c in samples if children and c >= children / 2), None)
    if half:
        print(f"root as its children first held half their peak: {mib(half[0])} (children {mib(half[1])})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
