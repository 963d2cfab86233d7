#!/usr/bin/env bash
# Run benchmark: `proctor run` against bare `pytest` on the same suite and
# selection, interleaved round by round (bench/pair.py). A benchmark, not
# a test.
#
#   bench/run/run.sh                  # both scenarios, 5 rounds
#   bench/run/run.sh --runs 9
#   bench/run/run.sh --runs 41 --scenario overhead --scenario history
#
# Scenarios (suites from bench/run/gen.py, under bench/out/):
#   overhead  200 modules x 20 tests, nothing gated: proctor's cost on top
#             of pytest (static pass, bridge, result stream), --no-history.
#   history   the same with the history recorded, as `proctor run` does by
#             default, into a database that holds 20 earlier runs (restored
#             before every run, so that each round writes the same).
#   gated     the same, half of the modules GPU modules whose import takes
#             50 ms; on a machine without a GPU bare pytest imports them to
#             skip their tests (a conftest gate), proctor does not import
#             them at all. --no-history.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
RUNS=5
WARMUP=1
SCENARIOS=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --runs) RUNS="$2"; shift 2 ;;
        --scenario) SCENARIOS+=("$2"); shift 2 ;;
        --warmup) WARMUP="$2"; shift 2 ;;
        -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
        *) echo "unknown option: $1" >&2; exit 2 ;;
    esac
done
[[ ${#SCENARIOS[@]} -gt 0 ]] || SCENARIOS=(overhead history gated)
for scenario in "${SCENARIOS[@]}"; do
    [[ $scenario == overhead || $scenario == history || $scenario == gated ]] || { echo "unknown scenario: $scenario (overhead, history, gated)" >&2; exit 2; }
done
PY="$ROOT/.venv/bin/python"
[[ -x "$PY" ]] || { echo "needs the repo's .venv with pytest (scripts/test makes it)" >&2; exit 2; }
(cd "$ROOT" && cargo build --release -p proctor >&2)
PROCTOR="$ROOT/target/release/proctor"
OUT="$ROOT/bench/out/run"
rm -rf "$OUT"
mkdir -p "$OUT"
python3 "$ROOT/bench/run/gen.py" "$OUT/overhead" --modules 200 --tests 20
python3 "$ROOT/bench/run/gen.py" "$OUT/gated" --modules 200 --tests 20 --gpu-share 0.5 --import-ms 50
{
    echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
    echo "machine: $(nproc) cores"
    echo "commit: $(cd "$ROOT" && git rev-parse --short HEAD)"
    echo "pytest: $("$PY" -m pytest --version 2>&1)"
    printf 'command: bench/run/run.sh --runs %s' "$RUNS"
    printf ' --scenario %s' "${SCENARIOS[@]}"
    echo
} >&2
# Bytecode caching on, as on a developer's machine (a CI image may turn it
# off; then both recompile every module, which dilutes the ratio).
unset PYTHONDONTWRITEBYTECODE
# The history scenario's database: one real run, copied 19 times over.
cp -r "$OUT/overhead" "$OUT/history"
(cd "$OUT/history" && "$PROCTOR" run --python "$PY" -- -p no:cacheprovider >/dev/null)
python3 - "$OUT/history/.proctor/history.db" <<'EOF'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for _ in range(19):
    run = db.execute("INSERT INTO runs (started_at, finished_at, command, selection, exit_code, shard) "
                     "SELECT started_at, finished_at, command, selection, exit_code, shard FROM runs WHERE id = 1").lastrowid
    db.execute("INSERT INTO results (run_id, test_id, outcome, duration, attempts, flaky, phase) "
               "SELECT ?, test_id, outcome, duration, attempts, flaky, phase FROM results WHERE run_id = 1", (run,))
db.commit()
db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
db.close()
EOF
cp "$OUT/history/.proctor/history.db" "$OUT/history-20-runs.db"
for scenario in "${SCENARIOS[@]}"; do
    echo "== $scenario" >&2
    history=(--no-history)
    before=()
    if [[ $scenario == history ]]; then
        history=()
        before=(--before "rm -f .proctor/history.db-wal .proctor/history.db-shm && cp '$OUT/history-20-runs.db' .proctor/history.db")
    fi
    python3 "$ROOT/bench/pair.py" --cwd "$OUT/$scenario" --runs "$RUNS" --warmup "$WARMUP" "${before[@]}" --out-dir "$OUT/results-$scenario" \
        --name pytest -- "$PY" -m pytest -q -p no:cacheprovider \
        --- --name proctor -- "$PROCTOR" run --python "$PY" "${history[@]}" -- -p no:cacheprovider
    tail -1 "$OUT/results-$scenario/pytest.stdout" >&2
    tail -1 "$OUT/results-$scenario/proctor.stdout" >&2
done
