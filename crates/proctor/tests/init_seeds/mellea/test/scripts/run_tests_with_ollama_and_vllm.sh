#!/bin/bash
# Mellea's nightly run, as its seed describes it (reduced): starts a local
# Ollama and, on a CUDA host, a local vLLM server, then runs the suite.
#
# Phased execution is the default (SERIAL_PHASES=1): each backend group
# runs as its own pytest process with only its own server alive, so one
# CUDA context at a time (peak GPU memory ~33 GiB instead of ~72 GiB).
# SERIAL_PHASES=0 is the legacy single process: both servers up front and
# `pytest test/ --group-by-backend`.
#
# CICD is not set here: the qualitative tests run. `slow` stays excluded
# (each phase keeps addopts' `not slow` in its own -m).
# With WITH_EXAMPLES=1 a notebook pass follows, under `-m e2e`, which
# replaces the configured -m "not slow": the slow notebooks run there.
#
# Durations and JSON reports go to the log directory: pytest_full.log and
# pytest_report.json (legacy), phase_<name>.log and
# pytest_report_<name>.json (phased).
#
# LSF directives (`bsub < run_tests_with_ollama_and_vllm.sh`): one job on one
# 80 GB card, shared so that Ollama can run its per-model workers.
#BSUB -q preemptable
#BSUB -n 1
#BSUB -gpu "num=1/task:mode=shared:j_exclusive=yes:gmem=80G"
#
# The recommended split runs the GPU-only phases as a second job on an
# exclusive GPU (-gpu "num=1:mode=exclusive_process"); the Ollama phase
# needs mode=shared, since Ollama runs one llama-server worker per model.

set -euo pipefail

log() { echo "[$(date +%H:%M:%S)] $*"; }

LOGDIR="${MELLEA_LOGDIR:-logs/$(date +%Y-%m-%d-%H%M%S)}"
mkdir -p "$LOGDIR"
OLLAMA_PORT="${OLLAMA_PORT:-11434}"
VLLM_PORT="${VLLM_PORT:-8100}"
VLLM_MODEL="${VLLM_MODEL:-ibm-granite/granite-4.2-3b}"
OLLAMA_PID=""
VLLM_PID=""

if [[ -z "${WITH_VLLM:-}" ]]; then
    if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
        WITH_VLLM=1
    else
        WITH_VLLM=0
    fi
fi

start_ollama() {
    ollama serve >"$LOGDIR/ollama.log" 2>&1 &
    OLLAMA_PID=$!
    export OLLAMA_HOST="127.0.0.1:${OLLAMA_PORT}"
    until curl -sf "http://${OLLAMA_HOST}/api/tags" >/dev/null; do
        kill -0 "$OLLAMA_PID" || { log "ollama died"; exit 1; }
        sleep 1
    done
    for model in granite4.2:3b granite4:micro-h; do
        ollama pull "$model" | tail -1
    done
}

stop_ollama() {
    [[ -n "$OLLAMA_PID" ]] && kill "$OLLAMA_PID" && wait "$OLLAMA_PID" || true
    OLLAMA_PID=""
}

start_vllm() {
    [[ "$WITH_VLLM" == "1" ]] || return 0
    .vllm-venv/bin/python -m vllm.entrypoints.openai.api_server \
        --model "$VLLM_MODEL" --port "$VLLM_PORT" --gpu-memory-utilization 0.4 \
        >"$LOGDIR/vllm.log" 2>&1 &
    VLLM_PID=$!
    until curl -sf "http://127.0.0.1:${VLLM_PORT}/v1/models" >/dev/null; do
        kill -0 "$VLLM_PID" || { log "vllm died"; exit 1; }
        sleep 1
    done
    export VLLM_TEST_BASE_URL="http://127.0.0.1:${VLLM_PORT}"
    export VLLM_TEST_MODEL="$VLLM_MODEL"
}

stop_vllm() {
    [[ -n "$VLLM_PID" ]] && kill "$VLLM_PID" && wait "$VLLM_PID" || true
    VLLM_PID=""
}

trap 'stop_ollama; stop_vllm' EXIT

PYTEST_ARGS=(--durations=0 --json-report)
EXIT_CODE=0

if [[ "${SERIAL_PHASES:-1}" == "1" ]]; then
    log "Phased run: one pytest process per backend group"
    start_ollama
    uv run --frozen --all-groups pytest test/ -m "ollama and not slow" "${PYTEST_ARGS[@]}" \
        --json-report-file="$LOGDIR/pytest_report_ollama.json" 2>&1 \
        | tee "$LOGDIR/phase_ollama.log" || EXIT_CODE=1
    stop_ollama
    uv run --frozen --all-groups pytest test/ -m "huggingface and not slow" "${PYTEST_ARGS[@]}" \
        --json-report-file="$LOGDIR/pytest_report_huggingface.json" 2>&1 \
        | tee "$LOGDIR/phase_huggingface.log" || EXIT_CODE=1
    start_vllm
    uv run --frozen --all-groups pytest test/ -m "(openai or vllm) and not (ollama or slow)" "${PYTEST_ARGS[@]}" \
        --json-report-file="$LOGDIR/pytest_report_openai.json" 2>&1 \
        | tee "$LOGDIR/phase_openai.log" || EXIT_CODE=1
    stop_vllm
    uv run --frozen --all-groups pytest test/ -m "not (ollama or huggingface or openai or vllm or slow)" "${PYTEST_ARGS[@]}" \
        --json-report-file="$LOGDIR/pytest_report_rest.json" 2>&1 \
        | tee "$LOGDIR/phase_rest.log" || EXIT_CODE=1
else
    log "Legacy run: both servers for the whole run"
    start_ollama
    start_vllm
    uv run --frozen --all-groups pytest test/ --group-by-backend "${PYTEST_ARGS[@]}" "$@" \
        --json-report-file="$LOGDIR/pytest_report.json" 2>&1 \
        | tee "$LOGDIR/pytest_full.log" || EXIT_CODE=1
fi

if [[ "${WITH_EXAMPLES:-0}" == "1" ]]; then
    log "Notebook pass: -m e2e, the slow notebooks included"
    [[ -n "$OLLAMA_PID" ]] || start_ollama
    # The notebooks' own packages (their `mellea` metadata names docling),
    # pinned, and nbmake's kernel client.
    uv run --frozen --all-groups --with docling==2.0 --with nbclient==0.11 --with nbmake \
        pytest --nbmake docs/examples/notebooks -m e2e 2>&1 \
        | tee "$LOGDIR/notebooks.log" || EXIT_CODE=1
fi

log "Tests finished with exit code: $EXIT_CODE (logs: $LOGDIR/)"
exit $EXIT_CODE
