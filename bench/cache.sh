#!/usr/bin/env bash
# Collection cache benchmark: `proctor collect --json` cold (cache removed
# before each run), warm (nothing changed) and warm after editing one test
# file (a comment line appended before each run), against
# `rtest --collect-only`, all with `hyperfine -N` in the same run, from the
# suite's rootdir.
#
#   bench/cache.sh SUITE_DIR TEST_FILE [--runs N] [--proctor BIN] [--rtest BIN]
#
#   SUITE_DIR   the suite's rootdir (a copy: the cache is written there, and
#               TEST_FILE gets a comment line per run)
#   TEST_FILE   the test file to edit, relative to SUITE_DIR
#   --runs N    timed runs per command (default 20, after 3 warmups)
#   --proctor   default: target/release/proctor (CARGO_TARGET_DIR honoured)
#   --rtest     default: .venv/bin/rtest, else rtest on PATH
#
# Writes bench/out/cache-<suite name>.md (hyperfine's Markdown table) and
# prints it. Needs hyperfine. The target interpreter is found as usual
# (`VIRTUAL_ENV`, `[tool.proctor] python`, `.venv`, PATH).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SUITE="$1"
EDIT="$2"
shift 2
RUNS=20
PROCTOR="${CARGO_TARGET_DIR:-$ROOT/target}/release/proctor"
RTEST="$ROOT/.venv/bin/rtest"
[[ -x "$RTEST" ]] || RTEST="$(command -v rtest || true)"
while [[ $# -gt 0 ]]; do
    case "$1" in
        --runs) RUNS="$2"; shift 2 ;;
        --proctor) PROCTOR="$2"; shift 2 ;;
        --rtest) RTEST="$2"; shift 2 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
SUITE="$(cd "$SUITE" && pwd)"
[[ -f "$SUITE/$EDIT" ]] || { echo "no $EDIT in $SUITE" >&2; exit 2; }
mkdir -p "$ROOT/bench/out"
OUT="$ROOT/bench/out/cache-$(basename "$SUITE").md"
cd "$SUITE"

# The outputs must agree before anything is timed.
"$PROCTOR" collect --json --no-cache > /tmp/proctor-cache-bench.plain.json || true
"$PROCTOR" collect --json > /dev/null || true
"$PROCTOR" collect --json > /tmp/proctor-cache-bench.warm.json || true
cmp /tmp/proctor-cache-bench.plain.json /tmp/proctor-cache-bench.warm.json

COMMANDS=(
    --command-name "proctor cold (cache removed)" --prepare "$PROCTOR cache clean"
    "$PROCTOR collect --json"
    --command-name "proctor warm, nothing changed" --prepare "true"
    "$PROCTOR collect --json"
    --command-name "proctor warm, $EDIT edited" --prepare "sh -c 'echo \"# edit \$(date +%N)\" >> $EDIT'"
    "$PROCTOR collect --json"
    --command-name "proctor --no-cache" --prepare "true"
    "$PROCTOR collect --json --no-cache"
)
if [[ -n "$RTEST" ]]; then
    COMMANDS+=(--command-name "rtest --collect-only" --prepare "true" "$RTEST --collect-only")
fi
hyperfine -N -i --warmup 3 --runs "$RUNS" --output=null --export-markdown "$OUT" "${COMMANDS[@]}" >&2
cat "$OUT"
