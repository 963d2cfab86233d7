#!/usr/bin/env python3
"""Paired cold-start timing: proctor binaries and rtest, interleaved.

hyperfine runs all of one command's runs, then the next command's: on a
shared virtual machine whose speed drifts by a third within a minute, the
commands then meet different machines. Here every round runs each command
once, in a rotating order, with the cache removed before each proctor run
(as `hyperfine --prepare 'rm -rf .proctor'`), and each proctor binary is
compared with the rtest run of the same round.

    bench/paired.py [--runs N] [--warmup N] --suite DIR --venv DIR \\
        --rtest BIN [--no-cache] BIN [BIN ...]

DIR is a private copy of a suite (its `.proctor` is removed); VIRTUAL_ENV
is set to --venv for every command. Prints, per command, the median and
minimum wall time, and per proctor binary the median of its per-round
ratios to rtest (below 1: faster than rtest).
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time


def run(argv, cwd, env):
    start = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--suite", required=True)
    parser.add_argument("--venv", required=True)
    parser.add_argument("--rtest", required=True)
    parser.add_argument("--no-cache", action="store_true",
                        help="time `collect --json --no-cache` instead")
    parser.add_argument("proctor", nargs="+")
    args = parser.parse_args()

    # The commands run in the suite: a relative --venv would name nothing there.
    env = dict(os.environ, VIRTUAL_ENV=os.path.abspath(args.venv))
    cache = os.path.join(args.suite, ".proctor")
    extra = ["--no-cache"] if args.no_cache else []
    commands = [("rtest", [args.rtest, "--collect-only"])]
    commands += [(b, [b, "collect", "--json", *extra]) for b in args.proctor]
    times = {name: [] for name, _ in commands}
    for round_ in range(args.warmup + args.runs):
        # Rotate the order so that no command always follows another.
        shift = round_ % len(commands)
        for name, argv in commands[shift:] + commands[:shift]:
            shutil.rmtree(cache, ignore_errors=True)
            elapsed = run(argv, args.suite, env)
            if round_ >= args.warmup:
                times[name].append(elapsed)
    rtest = times["rtest"]
    for name, _ in commands:
        t = times[name]
        line = f"{name}: median {statistics.median(t) * 1000:.1f} ms, min {min(t) * 1000:.1f} ms"
        if name != "rtest":
            ratios = [a / b for a, b in zip(t, rtest)]
            line += f", x rtest: median {statistics.median(ratios):.2f}"
            line += f" (rounds faster than rtest: {sum(r < 1 for r in ratios)}/{len(ratios)})"
        print(line)
    print(f"load: {os.getloadavg()[0]:.2f}", file=sys.stderr)


if __name__ == "__main__":
    main()
