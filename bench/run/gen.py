#!/usr/bin/env python3
"""A suite for the run benchmark: MODULES test modules of TESTS tests each;
a share of them are GPU modules (``pytestmark = pytest.mark.gpu``) whose
import costs IMPORT_MS milliseconds, as modules importing torch do. A
conftest skips GPU tests when there is no GPU — the hand-written gate
bare pytest needs, which must import every module first — and proctor's
config states the same need (``[needs.gpu] gpu = true``).

    python3 bench/run/gen.py OUT --modules 200 --tests 20 --gpu-share 0.5 --import-ms 50
    python3 bench/run/gen.py OUT --modules 40 --tests 20 --every-import-ms 60
"""

import argparse
from pathlib import Path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out", type=Path)
    ap.add_argument("--modules", type=int, default=200)
    ap.add_argument("--tests", type=int, default=20)
    ap.add_argument("--gpu-share", type=float, default=0.0)
    ap.add_argument("--import-ms", type=int, default=0)
    ap.add_argument("--every-import-ms", type=int, default=0,
                    help="what importing each module (GPU or not) costs, as a heavy import does")
    args = ap.parse_args()
    out = args.out
    (out / "tests").mkdir(parents=True, exist_ok=True)
    (out / "pyproject.toml").write_text(
        "[tool.pytest.ini_options]\n"
        "testpaths = ['tests']\n"
        "markers = ['gpu: needs a GPU']\n\n"
        "[tool.proctor.needs.gpu]\n"
        "gpu = true\n"
    )
    (out / "tests" / "conftest.py").write_text(
        "import shutil\n"
        "import pytest\n\n"
        "HAS_GPU = shutil.which('nvidia-smi') is not None\n\n"
        "def pytest_collection_modifyitems(config, items):\n"
        "    for item in items:\n"
        "        if item.get_closest_marker('gpu') and not HAS_GPU:\n"
        "            item.add_marker(pytest.mark.skip(reason='no GPU detected'))\n"
    )
    gpu_modules = round(args.modules * args.gpu_share)
    for m in range(args.modules):
        gpu = m < gpu_modules
        lines = ["import time", "import pytest", ""]
        if args.every_import_ms:
            lines += [f"time.sleep({args.every_import_ms / 1000})  # a heavy import", ""]
        if gpu:
            lines += ["pytestmark = pytest.mark.gpu", f"time.sleep({args.import_ms / 1000})  # a heavy import", ""]
        for t in range(args.tests):
            lines += [f"def test_{m}_{t}():", f"    assert {t} + 1 == {t + 1}", ""]
        (out / "tests" / f"test_mod{m:04}.py").write_text("\n".join(lines))


if __name__ == "__main__":
    main()
