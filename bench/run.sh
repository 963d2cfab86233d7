#!/usr/bin/env bash
# Static collection benchmark: proctor vs pytest --collect-only vs rtest,
# measured side by side in the same run on the same generated suite.
#
#   bench/run.sh                 # 10,000 test modules (pytest: 1 timed run + 1 warmup)
#   bench/run.sh --files 1000    # quick run
#
# Options:
#   --files N         test modules to generate (default 10000)
#   --seed S          generator seed (default 1234)
#   --runs N          timed runs for proctor and rtest (default 10; 3 above 2000 files)
#   --warmup N        warmup runs for proctor and rtest (default 2; 1 above 2000 files)
#   --pytest-runs N   timed runs for pytest (default 3; 1 above 2000 files);
#                     pytest always gets 1 warmup (its first, cold run is reported)
#   --hyperfine / --no-hyperfine
#                     cross-check proctor and rtest with hyperfine if installed
#                     (default on up to 2000 files, off above)
#   --markers         also compare markers: one extra, untimed pytest run with
#                     tests/harness/dump_items.py (pytest's item.iter_markers())
#
# Needs: cargo, python3, the repo's .venv with pytest and rtest
# (python3 -m venv .venv && .venv/bin/pip install pytest rtest).
# Everything lands in bench/out/ (gitignored):
#   bench/out/suite-N[-sS]/   the generated suite (reused if present)
#   bench/out/results-N[-sS]/ per-tool JSON + captured output, results.md,
#                             full disagreement lists
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ARGS="$*"
FILES=10000
SEED=1234
RUNS=""
WARMUP=""
PYTEST_RUNS=""
HYPERFINE=""
MARKERS=0
while [[ $# -gt 0 ]]; do
    case "$1" in
        --files) FILES="$2"; shift 2 ;;
        --seed) SEED="$2"; shift 2 ;;
        --runs) RUNS="$2"; shift 2 ;;
        --warmup) WARMUP="$2"; shift 2 ;;
        --pytest-runs) PYTEST_RUNS="$2"; shift 2 ;;
        --no-hyperfine) HYPERFINE=0; shift ;;
        --hyperfine) HYPERFINE=1; shift ;;
        --markers) MARKERS=1; shift ;;
        -h|--help) sed -n '2,29p' "$0"; exit 0 ;;
        *) echo "unknown option: $1" >&2; exit 2 ;;
    esac
done
# Small suites: many repetitions.  Large ones: fewer (pytest alone takes minutes).
if (( FILES <= 2000 )); then
    : "${RUNS:=10}" "${WARMUP:=2}" "${PYTEST_RUNS:=3}" "${HYPERFINE:=1}"
else
    : "${RUNS:=3}" "${WARMUP:=1}" "${PYTEST_RUNS:=1}" "${HYPERFINE:=0}"
fi

TAG="$FILES"
[[ "$SEED" != 1234 ]] && TAG="$FILES-s$SEED"
SUITE="$ROOT/bench/out/suite-$TAG"
RESULTS="$ROOT/bench/out/results-$TAG"
PY="$ROOT/.venv/bin/python"
RTEST="$ROOT/.venv/bin/rtest"
PROCTOR="$ROOT/target/release/proctor"
TIMEIT=(python3 "$ROOT/bench/timeit.py")

echo "== build: cargo build --release -p proctor" >&2
HAVE_PROCTOR=1
if ! (cd "$ROOT" && cargo build --release -p proctor); then
    echo "!! proctor does not build; benchmarking the other tools only" >&2
    HAVE_PROCTOR=0
fi

# Regenerate when the generator changed since the suite was written.
STAMP="$(sha256sum "$ROOT/bench/gen_suite.py" | cut -c1-16) --files $FILES --seed $SEED"
if [[ ! -f "$SUITE/pyproject.toml" || "$(cat "$SUITE.stamp" 2>/dev/null)" != "$STAMP" ]]; then
    echo "== generate: $SUITE" >&2
    rm -rf "$SUITE"
    python3 "$ROOT/bench/gen_suite.py" "$SUITE" --files "$FILES" --seed "$SEED"
    echo "$STAMP" > "$SUITE.stamp"
else
    echo "== reuse suite: $SUITE" >&2
fi
rm -rf "$RESULTS"
mkdir -p "$RESULTS"

{
    echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
    echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(awk '/MemTotal/ {printf "%.1f GiB RAM", $2/1048576}' /proc/meminfo)"
    echo "commit: $(cd "$ROOT" && git rev-parse --short HEAD)$(cd "$ROOT" && git diff --quiet HEAD -- crates || echo ' (+ uncommitted changes in crates/)')"
    (( HAVE_PROCTOR )) && echo "proctor: $("$PROCTOR" --version 2>&1)"
    echo "pytest: $("$PY" -m pytest --version 2>&1 | head -1), $("$PY" --version 2>&1)"
    [[ -x "$RTEST" ]] && echo "rtest: $("$RTEST" --version 2>&1)"
    echo "suite: $SUITE ($FILES test modules, seed $SEED)"
    echo "command: bench/run.sh${ARGS:+ $ARGS}"
} | tee "$RESULTS/env.txt" >&2

# The same cwd (suite root) for every tool; each discovers testpaths itself.
if (( HAVE_PROCTOR )); then
    "${TIMEIT[@]}" --name proctor-json --cwd "$SUITE" --runs "$RUNS" --warmup "$WARMUP" \
        --out-dir "$RESULTS" -- "$PROCTOR" collect --json
    "${TIMEIT[@]}" --name proctor --cwd "$SUITE" --runs "$RUNS" --warmup "$WARMUP" \
        --out-dir "$RESULTS" -- "$PROCTOR" collect
fi
if [[ -x "$RTEST" ]]; then
    # rtest's --collect-only is static (its default pytest runner is not started).
    "${TIMEIT[@]}" --name rtest --cwd "$SUITE" --runs "$RUNS" --warmup "$WARMUP" \
        --out-dir "$RESULTS" -- "$RTEST" --collect-only
else
    echo "!! $RTEST not found: skipping rtest (.venv/bin/pip install rtest)" >&2
fi
# pytest last: its warmup writes __pycache__ (so its timed runs are warm).
"${TIMEIT[@]}" --name pytest --cwd "$SUITE" --runs "$PYTEST_RUNS" --warmup 1 \
    --out-dir "$RESULTS" -- "$PY" -m pytest --collect-only -q -p no:cacheprovider

if (( MARKERS )); then
    echo "== markers: untimed pytest run with tests/harness/dump_items.py" >&2
    (cd "$SUITE" && PYTHONPATH="$ROOT/tests/harness" PROCTOR_DUMP="$RESULTS/pytest-dump.json" \
        "$PY" -m pytest --collect-only -q -p dump_items -p no:cacheprovider >/dev/null) \
        || echo "!! marker dump run failed" >&2
fi

if (( HYPERFINE )) && command -v hyperfine >/dev/null; then
    echo "== hyperfine cross-check (fast tools, output to /dev/null)" >&2
    hf=()
    (( HAVE_PROCTOR )) && hf+=("$PROCTOR collect --json" "$PROCTOR collect")
    [[ -x "$RTEST" ]] && hf+=("$RTEST --collect-only")
    if (( ${#hf[@]} )); then
        (cd "$SUITE" && hyperfine -N --warmup "$WARMUP" --runs "$RUNS" \
            --export-markdown "$RESULTS/hyperfine.md" "${hf[@]}" >&2) || echo "!! hyperfine failed" >&2
    fi
fi

echo >&2
cat "$RESULTS/env.txt"
echo
python3 "$ROOT/bench/compare.py" "$RESULTS"
if [[ -f "$RESULTS/hyperfine.md" ]]; then
    echo "hyperfine cross-check:"
    echo
    sed "s#$ROOT/##g" "$RESULTS/hyperfine.md"
fi
echo
echo "(full output and disagreement lists: ${RESULTS#$ROOT/})"
