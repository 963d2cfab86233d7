#!/usr/bin/env bash
# Run overhead in instructions: `proctor run` against bare `pytest` on the
# same suite, counted by valgrind's callgrind (user-space instructions,
# repeatable whatever else the machine does, unlike wall time on a shared
# VM whose CPU speed swings by a quarter from one run to the next).
# A benchmark, not a test.
#
#   bench/run/instructions.sh                 # 50 modules x 20 tests
#   bench/run/instructions.sh --modules 100
#
# Prints the instructions of bare pytest, of pytest under proctor (the
# bridge's share) and of proctor itself (most of it on the other core,
# while pytest runs), each with its ratio to bare pytest. Bytecode caching
# is on (PYTHONDONTWRITEBYTECODE unset) and a warm-up run fills the caches,
# as on a developer's machine; PYTHONHASHSEED is fixed.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
MODULES=50
TESTS=20
while [[ $# -gt 0 ]]; do
    case "$1" in
        --modules) MODULES="$2"; shift 2 ;;
        --tests) TESTS="$2"; shift 2 ;;
        -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
        *) echo "unknown option: $1" >&2; exit 2 ;;
    esac
done
command -v valgrind >/dev/null || { echo "needs valgrind (Debian: apt-get install valgrind)" >&2; exit 2; }
PY="$ROOT/.venv/bin/python"
[[ -x "$PY" ]] || { echo "needs the repo's .venv with pytest (scripts/test makes it)" >&2; exit 2; }
(cd "$ROOT" && cargo build --release -p proctor >&2)
PROCTOR="$ROOT/target/release/proctor"
OUT="$ROOT/bench/out/run-instructions"
rm -rf "$OUT"
mkdir -p "$OUT"
python3 "$ROOT/bench/run/gen.py" "$OUT/suite" --modules "$MODULES" --tests "$TESTS" >/dev/null
unset PYTHONDONTWRITEBYTECODE
export PYTHONHASHSEED=0
cd "$OUT/suite"
bare=("$PY" -m pytest -q -p no:cacheprovider)
ours=("$PROCTOR" run --python "$PY" --no-history -- -p no:cacheprovider)
"${bare[@]}" >/dev/null
"${ours[@]}" >/dev/null
# Both write their output to a file and read no input, as pytest does
# under proctor: where output goes and what stdin is shift CPython's
# instruction count by about 0.3% on their own.
valgrind --tool=callgrind --callgrind-out-file="$OUT/bare.%p" "${bare[@]}" >"$OUT/bare.stdout" 2>"$OUT/bare.log" </dev/null
valgrind --tool=callgrind --trace-children=yes --callgrind-out-file="$OUT/proctor.%p" "${ours[@]}" >"$OUT/proctor.stdout" 2>"$OUT/proctor.log" </dev/null
python3 - "$OUT" "$MODULES" "$TESTS" <<'EOF'
import glob, os, sys
out, modules, tests = sys.argv[1], sys.argv[2], sys.argv[3]
def total(path):
    with open(path) as f:
        for line in f:
            if line.startswith("summary:"):
                return int(line.split()[1])
    raise SystemExit(f"no summary in {path}")
bare = [total(p) for p in glob.glob(os.path.join(out, "bare.*")) if not p.endswith((".log", ".stdout"))]
ours = sorted(((os.path.getmtime(p), p) for p in glob.glob(os.path.join(out, "proctor.*")) if not p.endswith((".log", ".stdout"))))
# The first file is proctor's (it starts first), the other pytest's.
counts = sorted(((int(p.rsplit(".", 1)[1]), total(p)) for _, p in ours))
proctor_self, pytest_under = counts[0][1], sum(c for _, c in counts[1:])
base = bare[0]
print(f"suite: {modules} modules x {tests} tests; callgrind instructions (user space)")
print(f"bare pytest           {base:>15,}")
print(f"pytest under proctor  {pytest_under:>15,}  {pytest_under / base:.4f}x")
print(f"proctor itself        {proctor_self:>15,}  {proctor_self / base:.4f}x")
print(f"both                  {pytest_under + proctor_self:>15,}  {(pytest_under + proctor_self) / base:.4f}x")
EOF
