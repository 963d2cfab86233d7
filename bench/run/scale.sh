#!/usr/bin/env bash
# Scale benchmark: `proctor run` against bare `pytest` on one module of
# 100,000 parametrized tests whose parameter values are large and shared
# (bench/run/gen_params.py), interleaved round by round (bench/pair.py
# --tree-rss). Wall time and the peak of the summed RSS of each command's
# whole process tree (proctor plus its pytest child; pytest alone), as
# ratios proctor / pytest. Then one more, untimed run of each that
# compares every test's outcome and the exit status (bare pytest with
# tests/corpus/plugin/record_outcomes.py against `proctor run --json`,
# by `tests/corpus/corpus.py compare`): the script fails when any differs.
# A benchmark, not a test (run_differential's scale_benchmark_module runs
# the same module at 2,000 tests).
#
#   bench/run/scale.sh                    # 100,000 tests, 3 rounds + 1 warmup
#   bench/run/scale.sh --tests 20000 --runs 5
#   PROCTOR=target/debug/proctor bench/run/scale.sh --outcomes-only
#
# Options:
#   --tests N       tests to generate (default 100000)
#   --value-kb K    size of the shared bytearray value (default 2)
#   --runs N        timed rounds (default 3)
#   --warmup N      untimed rounds first (default 1)
#   --python PATH   the interpreter with pytest (default the repo's .venv)
#   --outcomes-only no timed rounds: only the comparison of every outcome
# PROCTOR=BIN uses that proctor binary instead of building a release one.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TESTS=100000
VALUE_KB=2
RUNS=3
WARMUP=1
PY="$ROOT/.venv/bin/python"
TIMED=1
while [[ $# -gt 0 ]]; do
    case "$1" in
        --tests) TESTS="$2"; shift 2 ;;
        --value-kb) VALUE_KB="$2"; shift 2 ;;
        --runs) RUNS="$2"; shift 2 ;;
        --warmup) WARMUP="$2"; shift 2 ;;
        --python) PY="$2"; shift 2 ;;
        --outcomes-only) TIMED=0; shift ;;
        -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
        *) echo "unknown option: $1" >&2; exit 2 ;;
    esac
done
[[ -x "$PY" ]] || { echo "needs a Python with pytest: --python PATH, or the repo's .venv (scripts/test makes it)" >&2; exit 2; }
if [[ -z "${PROCTOR:-}" ]]; then
    (cd "$ROOT" && cargo build --release -p proctor >&2)
    PROCTOR="${CARGO_TARGET_DIR:-$ROOT/target}/release/proctor"
fi
OUT="$ROOT/bench/out/scale-$TESTS"
rm -rf "$OUT"
mkdir -p "$OUT"
python3 "$ROOT/bench/run/gen_params.py" "$OUT/suite" --tests "$TESTS" --value-kb "$VALUE_KB"
{
    echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
    echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "commit: $(cd "$ROOT" && git rev-parse --short HEAD)"
    echo "pytest: $("$PY" -m pytest --version 2>&1)"
    echo "command: bench/run/scale.sh --tests $TESTS --value-kb $VALUE_KB --runs $RUNS --warmup $WARMUP$([[ $TIMED == 1 ]] || echo " --outcomes-only")"
} >&2
unset PYTHONDONTWRITEBYTECODE
if [[ "$TIMED" == 1 ]]; then
    python3 "$ROOT/bench/pair.py" --cwd "$OUT/suite" --runs "$RUNS" --warmup "$WARMUP" --tree-rss --out-dir "$OUT/results" \
        --name pytest -- "$PY" -m pytest -q -p no:cacheprovider \
        --- --name proctor -- "$PROCTOR" run --python "$PY" --no-history -- -p no:cacheprovider
    tail -1 "$OUT/results/pytest.stdout" >&2
    tail -1 "$OUT/results/proctor.stdout" >&2
fi
# Every outcome, untimed: the exit status of each process, then the tests.
set +e
(cd "$OUT/suite" && PYTHONPATH="$ROOT/tests/corpus/plugin" PROCTOR_DUMP="$OUT/pytest-outcomes.json" \
    "$PY" -m pytest -q -p record_outcomes -p no:cacheprovider >"$OUT/pytest-outcomes.log" 2>&1)
PYTEST_STATUS=$?
(cd "$OUT/suite" && "$PROCTOR" run --python "$PY" --no-history --json "$OUT/proctor-outcomes.json" \
    -- -p no:cacheprovider >"$OUT/proctor-outcomes.log" 2>&1)
PROCTOR_STATUS=$?
set -e
echo "every outcome: exit pytest $PYTEST_STATUS, proctor $PROCTOR_STATUS" >&2
[[ "$PYTEST_STATUS" == "$PROCTOR_STATUS" ]] || { echo "exit statuses differ" >&2; exit 1; }
python3 "$ROOT/tests/corpus/corpus.py" compare "$OUT/pytest-outcomes.json" "$OUT/proctor-outcomes.json" >&2
