#!/usr/bin/env bash
# Scale benchmark: `proctor run` against bare `pytest` on one module of
# 100,000 parametrized tests whose parameter values are large and shared
# (bench/run/gen_params.py), interleaved round by round (bench/pair.py
# --tree-rss). Wall time and the peak of the summed RSS of each command's
# whole process tree (proctor plus its pytest child; pytest alone), as
# ratios proctor / pytest. A benchmark, not a test.
#
#   bench/run/scale.sh                    # 100,000 tests, 3 rounds + 1 warmup
#   bench/run/scale.sh --tests 20000 --runs 5
#
# Options:
#   --tests N       tests to generate (default 100000)
#   --value-kb K    size of the shared bytearray value (default 2)
#   --runs N        timed rounds (default 3)
#   --warmup N      untimed rounds first (default 1)
#   --python PATH   the interpreter with pytest (default the repo's .venv)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TESTS=100000
VALUE_KB=2
RUNS=3
WARMUP=1
PY="$ROOT/.venv/bin/python"
while [[ $# -gt 0 ]]; do
    case "$1" in
        --tests) TESTS="$2"; shift 2 ;;
        --value-kb) VALUE_KB="$2"; shift 2 ;;
        --runs) RUNS="$2"; shift 2 ;;
        --warmup) WARMUP="$2"; shift 2 ;;
        --python) PY="$2"; shift 2 ;;
        -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
        *) echo "unknown option: $1" >&2; exit 2 ;;
    esac
done
[[ -x "$PY" ]] || { echo "needs a Python with pytest: --python PATH, or the repo's .venv (scripts/test makes it)" >&2; exit 2; }
(cd "$ROOT" && cargo build --release -p proctor >&2)
PROCTOR="${CARGO_TARGET_DIR:-$ROOT/target}/release/proctor"
OUT="$ROOT/bench/out/scale-$TESTS"
rm -rf "$OUT"
mkdir -p "$OUT"
python3 "$ROOT/bench/run/gen_params.py" "$OUT/suite" --tests "$TESTS" --value-kb "$VALUE_KB"
{
    echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
    echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "commit: $(cd "$ROOT" && git rev-parse --short HEAD)"
    echo "pytest: $("$PY" -m pytest --version 2>&1)"
    echo "command: bench/run/scale.sh --tests $TESTS --value-kb $VALUE_KB --runs $RUNS --warmup $WARMUP"
} >&2
unset PYTHONDONTWRITEBYTECODE
python3 "$ROOT/bench/pair.py" --cwd "$OUT/suite" --runs "$RUNS" --warmup "$WARMUP" --tree-rss --out-dir "$OUT/results" \
    --name pytest -- "$PY" -m pytest -q -p no:cacheprovider \
    --- --name proctor -- "$PROCTOR" run --python "$PY" --no-history -- -p no:cacheprovider
tail -1 "$OUT/results/pytest.stdout" >&2
tail -1 "$OUT/results/proctor.stdout" >&2
