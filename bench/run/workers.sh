#!/usr/bin/env bash
# Workers benchmark: `proctor run -n 2` against `pytest -n 2`
# (pytest-xdist) and against serial `pytest`, same suite and selection,
# interleaved round by round (bench/pair.py). A benchmark, not a test.
#
#   bench/run/workers.sh --python VENV/bin/python   # pytest and pytest-xdist pinned there
#   bench/run/workers.sh --python VENV/bin/python --runs 15 --workers 2
#   bench/run/workers.sh --python VENV/bin/python --simulate 4   # default 4; 0: none
#
# Suites (bench/run/gen.py, under bench/out/workers/):
#   import-heavy  40 modules x 20 tests, each module's import takes 60 ms
#                 (a heavy import): every xdist worker imports all 40,
#                 each proctor worker its share.
#   synthetic     200 modules x 20 tests that do nothing (the run
#                 benchmark's overhead suite).
# Both with --no-history (shares by file size) and -p no:cacheprovider.
# Then "-n SIMULATE simulated", for a machine with more cores than this
# one: `proctor run -n 4` and `pytest -n 4` once each, every pytest process
# reporting its CPU time, the test modules it imported and their import
# time (bench/run/worker_stats.py): what each worker costs, and the import
# time each proctor worker saves against an xdist worker.
# PROCTOR=path picks the binary (default: a release build of this tree).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
RUNS=9
WARMUP=1
N=2
SIM=4
PY=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --runs) RUNS="$2"; shift 2 ;;
        --warmup) WARMUP="$2"; shift 2 ;;
        --workers) N="$2"; shift 2 ;;
        --simulate) SIM="$2"; shift 2 ;;
        --python) PY="$2"; shift 2 ;;
        -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
        *) echo "unknown option: $1" >&2; exit 2 ;;
    esac
done
[[ -x "$PY" ]] || { echo "--python: a Python with pytest and pytest-xdist" >&2; exit 2; }
"$PY" -c "import xdist" || { echo "$PY has no pytest-xdist" >&2; exit 2; }
if [[ -z "${PROCTOR:-}" ]]; then
    (cd "$ROOT" && cargo build --release -p proctor >&2)
    PROCTOR="${CARGO_TARGET_DIR:-$ROOT/target}/release/proctor"
fi
OUT="$ROOT/bench/out/workers"
rm -rf "$OUT"
mkdir -p "$OUT"
python3 "$ROOT/bench/run/gen.py" "$OUT/import-heavy" --modules 40 --tests 20 --every-import-ms 60
python3 "$ROOT/bench/run/gen.py" "$OUT/synthetic" --modules 200 --tests 20
{
    echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
    echo "machine: $(nproc) cores"
    echo "commit: $(cd "$ROOT" && git rev-parse --short HEAD)"
    echo "pytest: $("$PY" -m pytest --version 2>&1), pytest-xdist $("$PY" -c 'import xdist; print(xdist.__version__)')"
    echo "command: bench/run/workers.sh --runs $RUNS --workers $N"
} >&2
unset PYTHONDONTWRITEBYTECODE
for suite in import-heavy synthetic; do
    proctor=("$PROCTOR" run -n "$N" -q --python "$PY" --no-history -- -p no:cacheprovider)
    for peer in xdist serial; do
        if [[ $peer == xdist ]]; then
            theirs=("$PY" -m pytest -q -n "$N" -p no:cacheprovider)
        else
            theirs=("$PY" -m pytest -q -p no:cacheprovider)
        fi
        echo "== $suite: proctor -n $N vs pytest ($peer)" >&2
        python3 "$ROOT/bench/pair.py" --cwd "$OUT/$suite" --runs "$RUNS" --warmup "$WARMUP" \
            --out-dir "$OUT/results-$suite-$peer" \
            --name "pytest-$peer" -- "${theirs[@]}" \
            --- --name proctor -- "${proctor[@]}"
        tail -1 "$OUT/results-$suite-$peer/pytest-$peer.stdout" >&2
        tail -1 "$OUT/results-$suite-$peer/proctor.stdout" >&2
    done
done
[[ "$SIM" -gt 0 ]] || exit 0
echo "== -n $SIM simulated: CPU and import time per pytest process (one run each)" >&2
for suite in import-heavy synthetic; do
    for tool in proctor xdist; do
        stats="$OUT/stats-$suite-$tool.jsonl"
        rm -f "$stats"
        if [[ $tool == xdist ]]; then
            cmd=("$PY" -m pytest -q -n "$SIM" -p no:cacheprovider -p worker_stats)
        else
            cmd=("$PROCTOR" run -n "$SIM" -q --python "$PY" --no-history -- -p no:cacheprovider -p worker_stats)
        fi
        start=$(date +%s.%N)
        (cd "$OUT/$suite" && WORKER_STATS="$stats" PYTHONPATH="$ROOT/bench/run" "${cmd[@]}" >"$OUT/sim-$suite-$tool.log" 2>&1) || true
        end=$(date +%s.%N)
        python3 - "$suite" "$tool" "$stats" "$start" "$end" <<'PY' >&2
import json, sys
suite, tool, path, start, end = sys.argv[1:]
rows = [json.loads(line) for line in open(path)]
workers = sorted((r for r in rows if r["role"] != "xdist controller"), key=lambda r: r["cpu_s"])
cpu = ", ".join("%.2f" % r["cpu_s"] for r in workers)
imports = ", ".join("%d in %.2f" % (r["modules"], r["import_s"]) for r in workers)
controller = "".join("; controller CPU %.2f s" % r["cpu_s"] for r in rows if r["role"] == "xdist controller")
print("%s %s: wall %.2f s on this machine, %d workers; CPU s per worker %s (sum %.2f); "
      "modules imported in s %s%s" % (suite, tool, float(end) - float(start), len(workers), cpu,
                                       sum(r["cpu_s"] for r in workers), imports, controller))
PY
    done
done
