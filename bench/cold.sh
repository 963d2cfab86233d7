#!/usr/bin/env bash
# Cold-start benchmark on the conformance corpus: `proctor collect --json`
# with the cache absent (removed before each run: what a first run pays,
# cache write included), `proctor collect --json --no-cache` (the lower
# bound) and `rtest --collect-only`, all three in the same `hyperfine -N`
# run per suite, from a copy of the suite (the cache is written there).
# Peak RSS is the median of three `/usr/bin/time -f %M` runs of each.
#
#   bench/cold.sh [--runs N] [--proctor BIN] [--rtest BIN] [--copies DIR] [SUITE ...]
#
#   SUITE       corpus suite names (default: every suite in .corpus/src)
#   --runs N    timed runs per command (default 10, after 2 warmups)
#   --proctor   default: target/release/proctor (CARGO_TARGET_DIR honoured)
#   --rtest     default: .venv/bin/rtest, else rtest on PATH
#   --copies    where the suites are copied (default /tmp/proctor-cold)
#
# Needs the corpus (`tests/corpus/corpus.py fetch`; PROCTOR_CORPUS, default
# .corpus) and hyperfine. Each suite runs with VIRTUAL_ENV its corpus venv.
# Prints a Markdown table and writes it to bench/out/cold.md.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CORPUS="${PROCTOR_CORPUS:-$ROOT/.corpus}"
RUNS=10
PROCTOR="${CARGO_TARGET_DIR:-$ROOT/target}/release/proctor"
RTEST="$ROOT/.venv/bin/rtest"
[[ -x "$RTEST" ]] || RTEST="$(command -v rtest || true)"
COPIES=/tmp/proctor-cold
SUITES=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --runs) RUNS="$2"; shift 2 ;;
        --proctor) PROCTOR="$2"; shift 2 ;;
        --rtest) RTEST="$2"; shift 2 ;;
        --copies) COPIES="$2"; shift 2 ;;
        -*) echo "unknown option $1" >&2; exit 2 ;;
        *) SUITES+=("$1"); shift ;;
    esac
done
[[ -x "$PROCTOR" ]] || { echo "no proctor at $PROCTOR" >&2; exit 2; }
[[ -x "$RTEST" ]] || { echo "no rtest (give --rtest)" >&2; exit 2; }
PROCTOR="$(cd "$(dirname "$PROCTOR")" && pwd)/$(basename "$PROCTOR")"
if [[ ${#SUITES[@]} -eq 0 ]]; then
    for venv in "$CORPUS"/venv/*/; do SUITES+=("$(basename "$venv")"); done
fi
mkdir -p "$ROOT/bench/out" "$COPIES"
OUT="$ROOT/bench/out/cold.md"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# Median peak RSS in MiB of three runs of a command, the cache removed first.
rss() {
    local samples=()
    for _ in 1 2 3; do
        rm -rf .proctor
        /usr/bin/time -f %M -o "$WORK/rss" "$@" > /dev/null 2>&1 || true
        samples+=("$(tail -1 "$WORK/rss")")
    done
    printf '%s\n' "${samples[@]}" | sort -n | sed -n 2p | awk '{ printf "%.1f", $1 / 1024 }'
}

{
    echo "| suite | cold ms (min) | \`--no-cache\` ms (min) | rtest ms (min) | cold × rtest | \`--no-cache\` × rtest | RSS MiB cold / \`--no-cache\` / rtest | cold RSS × rtest |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|"
} > "$OUT"
for suite in "${SUITES[@]}"; do
    src=("$CORPUS"/src/"$suite"-[0-9]*)
    [[ -d "${src[0]}" && -d "$CORPUS/venv/$suite" ]] || { echo "no corpus suite $suite" >&2; exit 2; }
    copy="$COPIES/$(basename "${src[0]}")"
    [[ -d "$copy" ]] || cp -r "${src[0]}" "$copy"
    export VIRTUAL_ENV="$CORPUS/venv/$suite"
    cd "$copy"
    # The outputs must agree before anything is timed.
    rm -rf .proctor
    "$PROCTOR" collect --json > "$WORK/cold.json" || true
    "$PROCTOR" collect --json --no-cache > "$WORK/plain.json" || true
    cmp -s "$WORK/cold.json" "$WORK/plain.json" || { echo "$suite: cold and --no-cache differ" >&2; exit 1; }
    hyperfine -N -i --warmup 2 --runs "$RUNS" --export-json "$WORK/h.json" \
        --prepare 'rm -rf .proctor' \
        "$PROCTOR collect --json" "$PROCTOR collect --json --no-cache" "$RTEST --collect-only" > /dev/null
    read -r cold nocache rtest < <(python3 - "$WORK/h.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
print(" ".join(f"{x['mean'] * 1000:.1f}/{x['min'] * 1000:.1f}" for x in r))
EOF
)
    rss_cold="$(rss "$PROCTOR" collect --json)"
    rss_plain="$(rss "$PROCTOR" collect --json --no-cache)"
    rss_rtest="$(rss "$RTEST" --collect-only)"
    python3 - "$suite" "$cold" "$nocache" "$rtest" "$rss_cold" "$rss_plain" "$rss_rtest" >> "$OUT" <<'EOF'
import sys
suite, cold, plain, rtest, rc, rp, rr = sys.argv[1:]
mean = lambda s: float(s.split("/")[0])
fmt = lambda s: f"{s.split('/')[0]} ({s.split('/')[1]})"
print(f"| {suite} | {fmt(cold)} | {fmt(plain)} | {fmt(rtest)} | {mean(cold) / mean(rtest):.2f}× "
      f"| {mean(plain) / mean(rtest):.2f}× | {rc} / {rp} / {rr} | {float(rc) / float(rr):.2f}× |")
EOF
    tail -1 "$OUT"
    cd "$ROOT"
done
echo
echo "load: $(uptime | sed 's/.*load average: //')"
cat "$OUT"
