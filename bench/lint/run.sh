#!/usr/bin/env bash
# Lint benchmark: `proctor check` vs `ruff check --select PT`, timed side by
# side in the same run on the same generated suite. A benchmark, not a test.
#
#   bench/lint/run.sh                 # 10,000 test modules
#   bench/lint/run.sh --files 1000    # quick run
#
# Options:
#   --files N     test modules to generate (default 10000)
#   --seed S      generator seed (default 1234)
#   --runs N      timed rounds, each running both tools (default 5)
#   --warmup N    warmup runs per tool (default 1)
#
# Needs: cargo, python3 and the repo's .venv (ruff is installed into it with
# `.venv/bin/pip install ruff` when missing). Everything lands in bench/out/
# (gitignored):
#   bench/out/lint-suite-N[-sS]/    the generated suite plus proctor.toml
#                                   (reused while the generator is unchanged)
#   bench/out/lint-results-N[-sS]/  per-tool JSON from bench/timeit.py and the
#                                   output of each tool's last run
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
ARGS="$*"
FILES=10000
SEED=1234
RUNS=5
WARMUP=1
while [[ $# -gt 0 ]]; do
    case "$1" in
        --files) FILES="$2"; shift 2 ;;
        --seed) SEED="$2"; shift 2 ;;
        --runs) RUNS="$2"; shift 2 ;;
        --warmup) WARMUP="$2"; shift 2 ;;
        -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
        *) echo "unknown option: $1" >&2; exit 2 ;;
    esac
done

TAG="$FILES"
[[ "$SEED" != 1234 ]] && TAG="$FILES-s$SEED"
SUITE="$ROOT/bench/out/lint-suite-$TAG"
RESULTS="$ROOT/bench/out/lint-results-$TAG"
PROCTOR="$ROOT/target/release/proctor"
RUFF="$ROOT/.venv/bin/ruff"
TIMEIT=(python3 "$ROOT/bench/timeit.py")

if [[ ! -x "$RUFF" ]]; then
    echo "== install: .venv/bin/pip install ruff" >&2
    [[ -x "$ROOT/.venv/bin/pip" ]] || python3 -m venv "$ROOT/.venv"
    "$ROOT/.venv/bin/pip" install ruff
fi

echo "== build: cargo build --release -p proctor" >&2
(cd "$ROOT" && cargo build --release -p proctor)

# Regenerate when the generator changed since the suite was written.
STAMP="$(sha256sum "$ROOT/bench/gen_suite.py" | cut -c1-16) --files $FILES --seed $SEED"
if [[ ! -f "$SUITE/pyproject.toml" || "$(cat "$SUITE.stamp" 2>/dev/null)" != "$STAMP" ]]; then
    echo "== generate: $SUITE" >&2
    rm -rf "$SUITE" "$SUITE.stamp"
    python3 "$ROOT/bench/gen_suite.py" "$SUITE" --files "$FILES" --seed "$SEED"
    echo "$STAMP" > "$SUITE.stamp"
else
    echo "== reuse suite: $SUITE" >&2
fi
# A taxonomy over the generator's registered markers that fires on a share
# of the tests: axis cardinality, conflicts, companions, a deprecated and a
# removed marker, scopes, company. Rewritten on every run.
cat > "$SUITE/proctor.toml" <<'TOML'
[axes.tier]
markers = ["smoke", "integration", "e2e"]
cardinality = "at-most-one"

[markers.slow]
conflicts = ["smoke"]

[markers.network]
requires-any = ["integration", "e2e"]

[markers.flaky]
deprecated = true

[markers.gpu]
removed = "use the `cuda` fixture instead"

[markers.serial]
scope = ["function"]

[markers.owner]
only-with = ["integration", "e2e"]
TOML
rm -rf "$RESULTS"
mkdir -p "$RESULTS"

{
    echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
    echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(awk '/MemTotal/ {printf "%.1f GiB RAM", $2/1048576}' /proc/meminfo)"
    echo "commit: $(cd "$ROOT" && git rev-parse --short HEAD)$(cd "$ROOT" && git diff --quiet HEAD -- crates || echo ' (+ uncommitted changes in crates/)')"
    echo "proctor: $("$PROCTOR" --version 2>&1)"
    echo "ruff: $("$RUFF" --version 2>&1)"
    echo "suite: $SUITE ($FILES test modules, seed $SEED; $(find "$SUITE" -name '*.py' | wc -l) .py files)"
    echo "runs: $RUNS timed after $WARMUP warmup, median reported"
    echo "load average before the runs: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "command: bench/lint/run.sh${ARGS:+ $ARGS}"
} | tee "$RESULTS/env.txt" >&2

# Same cwd (the suite root) for both, interleaved round by round (see
# bench/pair.py). The suite lies under the gitignored bench/out/, so ruff is
# told not to skip gitignored files (proctor, like pytest, ignores
# .gitignore).
python3 "$ROOT/bench/pair.py" --cwd "$SUITE" --runs "$RUNS" --warmup "$WARMUP" --out-dir "$RESULTS" \
    --name ruff -- "$RUFF" check --select PT --no-cache --no-respect-gitignore --output-format concise --exit-zero . \
    --- --name proctor -- "$PROCTOR" check --format concise

python3 - "$RESULTS" <<'PY'
import json, sys
from pathlib import Path
results = Path(sys.argv[1])
rows = {name: json.loads((results / f"{name}.json").read_text()) for name in ("proctor", "ruff")}
def findings(name):
    lines = Path(rows[name]["stdout"]).read_text().splitlines()
    return sum(1 for line in lines if line.count(":") >= 3 and not line.startswith(("Found", "All")))
print()
print("| tool | median | min | peak RSS | findings | exit |")
print("|---|---|---|---|---|---|")
for name, label in (("proctor", "proctor check --format concise"), ("ruff", "ruff check --select PT --no-cache")):
    r = rows[name]
    print(f"| `{label}` | {r['median_s']:.3f} s | {r['min_s']:.3f} s | {r['peak_rss_kb'] / 1024:.0f} MiB | {findings(name)} | {sorted(set(r['returncodes']))} |")
pair = json.loads((results / "pair.json").read_text())
print()
print(f"proctor / ruff wall time, median of {len(pair['ratios_b_over_a'])} interleaved rounds: {pair['median_ratio']:.2f}x")
PY
