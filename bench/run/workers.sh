#!/usr/bin/env bash
# Workers benchmark: `proctor run -n 2` against `pytest -n 2`
# (pytest-xdist) and against serial `pytest`, same suite and selection,
# interleaved round by round (bench/pair.py). A benchmark, not a test.
#
#   bench/run/workers.sh --python VENV/bin/python   # pytest and pytest-xdist pinned there
#   bench/run/workers.sh --python VENV/bin/python --runs 15 --workers 2
#
# Suites (bench/run/gen.py, under bench/out/workers/):
#   import-heavy  40 modules x 20 tests, each module's import takes 60 ms
#                 (a heavy import): every xdist worker imports all 40,
#                 each proctor worker its share.
#   synthetic     200 modules x 20 tests that do nothing (the run
#                 benchmark's overhead suite).
# Both with --no-history (shares by file size) and -p no:cacheprovider.
# PROCTOR=path picks the binary (default: a release build of this tree).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
RUNS=9
WARMUP=1
N=2
PY=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --runs) RUNS="$2"; shift 2 ;;
        --warmup) WARMUP="$2"; shift 2 ;;
        --workers) N="$2"; shift 2 ;;
        --python) PY="$2"; shift 2 ;;
        -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
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
