"""The CUDA backend: on numba's CUDA simulator in a subprocess (tiny sizes), compiled to PTX by
NVVM when a CUDA toolkit is installed, and on a real GPU when one is present (marked `gpu`,
skipped without one)."""

from __future__ import annotations

import glob
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from schedlab.solvers.kernels import cuda_available
from schedlab.solvers.sojourn.batch import evaluate_orders
from schedlab.solvers.sojourn.generate import generate
from schedlab.solvers.sojourn.montecarlo import monte_carlo_orders
from schedlab.solvers.sojourn.objectives import Objective
from schedlab.solvers.sojourn.problem import SojournProblem
from schedlab.solvers.solve import solve

ROOT = Path(__file__).resolve().parents[2]
PYTHONPATH = os.pathsep.join([str(ROOT / "src"), str(ROOT)])  # this checkout's schedlab


def test_cuda_backend_on_the_simulator():
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1", "PYTHONPATH": PYTHONPATH}
    proc = subprocess.run(
        [sys.executable, "-m", "tests.kernels.cudasim_check"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip().endswith("OK")


def _cuda_home() -> str | None:
    for root in [os.environ.get("CUDA_HOME", ""), *sorted(glob.glob("/usr/local/cuda*"))]:
        if root and glob.glob(os.path.join(root, "**", "libnvvm.so*"), recursive=True):
            return root
    return None


@pytest.mark.skipif(_cuda_home() is None, reason="no CUDA toolkit (libnvvm) installed")
def test_arith_compiles_to_ptx():
    # real CUDA compilation of the shared per-order functions (no GPU needed, only NVVM)
    env = {**os.environ, "CUDA_HOME": str(_cuda_home()), "PYTHONPATH": PYTHONPATH}
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    proc = subprocess.run(
        [sys.executable, "-m", "tests.kernels.ptx_check"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip().endswith("OK")


gpu = pytest.mark.skipif(
    os.environ.get("NUMBA_ENABLE_CUDASIM") == "1" or not cuda_available(),
    reason="needs a real NVIDIA GPU",
)


@pytest.mark.gpu
@gpu
def test_real_gpu_matches_numpy():
    inst = generate(300, 2)
    rng = np.random.default_rng(0)
    orders = rng.permuted(np.tile(np.arange(300), (5000, 1)), axis=1)
    for obj in (Objective("A"), Objective("B"), Objective("TK", 7), Objective("DK", 40)):
        ref = evaluate_orders(inst, orders[:200], obj, backend="numpy")
        got = evaluate_orders(inst, orders, obj, backend="cuda")
        np.testing.assert_allclose(got[:200], ref, rtol=1e-9)
    a = monte_carlo_orders(inst, orders[:64], Objective("B"), samples=2000, backend="cuda")
    b = monte_carlo_orders(inst, orders[:64], Objective("B"), samples=2000, backend="numpy")
    np.testing.assert_allclose(a.mean, b.mean, rtol=1e-10)


@pytest.mark.gpu
@gpu
def test_real_gpu_batchlocal_equals_cpu_quality():
    inst = generate(80, 5)
    cpu = solve(
        SojournProblem(inst, Objective("B")), "batchlocal", seed=1, options={"backend": "cpu"}
    )
    gpu_res = solve(
        SojournProblem(inst, Objective("B")), "batchlocal", seed=1, options={"backend": "cuda"}
    )
    assert gpu_res.value == pytest.approx(cpu.value, rel=1e-9)
