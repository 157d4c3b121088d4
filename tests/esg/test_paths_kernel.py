"""The path kernels (numpy reference, numba CPU, CUDA on the simulator) agree, and match a
Python enumeration."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from schedlab.solvers.kernels.paths import best_path

ROOT = Path(__file__).resolve().parents[2]


def _tables(seed: int, k: int, w: int):
    rng = np.random.default_rng(seed)
    counts = rng.integers(1, w + 1, size=k)
    lat = rng.uniform(1, 10, size=(k, w)).round(3)
    cost = rng.uniform(0, 1, size=(k, w))
    budget = float(np.sum([lat[s, : counts[s]].mean() for s in range(k)]))
    return lat, cost, counts, budget


def _python(lat, cost, counts, budget):
    best, arg = np.inf, None
    for cols in itertools.product(*[range(c) for c in counts]):
        tl = sum(lat[s, c] for s, c in enumerate(cols))  # stage 0 first, from 0
        tc = sum(cost[s, c] for s, c in enumerate(cols))
        if tl <= budget and tc < best - 1e-12:
            best, arg = tc, cols
    return best, arg


def test_backends_agree_with_python_enumeration():
    for seed in range(25):
        lat, cost, counts, budget = _tables(seed, 1 + seed % 5, 6)
        ref_cost, ref_arg = _python(lat, cost, counts, budget)
        outs = [best_path(lat, cost, counts, budget, backend=b, block=3) for b in ("numpy", "cpu")]
        for o in outs:
            assert o.paths == int(np.prod(counts))
            if ref_arg is None:
                assert o.choice is None
            else:
                assert np.isclose(o.cost, ref_cost, rtol=1e-12)
        a, b = outs
        assert a.feasible_paths == b.feasible_paths and a.cost == b.cost
        assert (a.choice is None and b.choice is None) or (a.choice == b.choice).all()


def test_cuda_backend_on_the_simulator():
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1", "PYTHONPATH": str(ROOT / "src")}
    code = (
        "import numpy as np\n"
        "from schedlab.solvers.kernels.paths import best_path\n"
        "from tests.esg.test_paths_kernel import _tables\n"
        "for seed in range(4):\n"
        "    lat, cost, counts, budget = _tables(seed, 3, 4)\n"
        "    limit = 0.0 + lat[0, 1] + lat[1, 0] + lat[2, 1]  # a path's sum, stage 0 first\n"
        "    for b in (budget, limit):\n"
        "        a = best_path(lat, cost, counts, b, backend='numpy')\n"
        "        g = best_path(lat, cost, counts, b, backend='cuda', block=2)\n"
        "        assert a.cost == g.cost and a.feasible_paths == g.feasible_paths, (a, g)\n"
        "print('OK')\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip().endswith("OK")


def test_backends_sum_a_path_as_a_plan_does_at_the_exact_limit():
    # latencies on no grid, limits equal to a path's sum (stage 0 first, from 0.0): a kernel that
    # summed in another order would miss some of them by an ulp
    rng = np.random.default_rng(7)
    for seed in range(30):
        k, w = 2 + seed % 4, 4
        counts = np.full(k, w)
        lat = rng.uniform(0.01, 100.0, size=(k, w)) * rng.choice([1.0, 1e-3, 1e3], size=(k, w))
        cost = rng.uniform(0, 1, size=(k, w))
        for cols in list(itertools.product(*[range(c) for c in counts]))[::7]:
            limit = 0.0
            for s, c in enumerate(cols):
                limit += lat[s, c]
            want = sum(
                sum(lat[s, c] for s, c in enumerate(other)) <= limit
                for other in itertools.product(*[range(c) for c in counts])
            )
            for b in ("numpy", "cpu"):
                got = best_path(lat, cost, counts, limit, backend=b, block=3)
                assert got.feasible_paths == want, (seed, cols, b)
