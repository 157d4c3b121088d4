"""`make gpu-check`'s benchmark runs end to end on numba's CUDA simulator and writes its table."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PYTHONPATH = os.pathsep.join([str(ROOT / "src"), str(ROOT)])  # this checkout's schedlab


def test_make_gpu_check_runs_the_gpu_tests_then_the_cuda_bench():
    text = (ROOT / "Makefile").read_text()
    target = text.split("\ngpu-check:", 1)[1].split("\n\n", 1)[0]
    assert "cuda_available" in target  # stops first, naming the missing device
    assert "pytest -q -m gpu" in target and "bench bench_cuda" in target


def test_bench_cuda_on_the_simulator_writes_an_agreeing_table(tmp_path):
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1", "PYTHONPATH": PYTHONPATH}
    proc = subprocess.run(
        [sys.executable, "-m", "schedlab.experiments.bench", "bench_cuda", "--quick"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    table = (tmp_path / "results" / "performance" / "gpu_check.md").read_text()
    assert "numba CUDA simulator" in table.splitlines()[0]
    rows = [ln for ln in table.splitlines() if ln.startswith("| ") and "kernel" not in ln]
    kernels = [r.split("|")[1].strip() for r in rows]
    assert kernels == [
        "evaluate B",
        "evaluate DK",
        "monte carlo B",
        "batchlocal B (value)",
        "esg paths",
    ]
    assert all(r.rstrip(" |").endswith("yes") for r in rows)


def test_bench_cuda_times_nothing_without_a_device(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    env |= {"PYTHONPATH": PYTHONPATH, "NUMBA_DISABLE_CUDA": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "schedlab.experiments.bench", "bench_cuda"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0 and "no CUDA device" in proc.stdout
    assert not (tmp_path / "results").exists()
