"""The CUDA backend at tiny sizes; run by test_cuda_sim.py with NUMBA_ENABLE_CUDASIM=1.

numba reads NUMBA_ENABLE_CUDASIM when it is first imported, so this runs in its own process.
Prints OK when every check passes (an AssertionError otherwise).
"""

from __future__ import annotations

import os

import numpy as np

from schedlab.solvers.kernels import best_insertion_moves, insertion_sweeps, resolve_backend
from schedlab.solvers.sojourn.batch import evaluate_orders
from schedlab.solvers.sojourn.generate import generate
from schedlab.solvers.sojourn.montecarlo import monte_carlo_orders
from schedlab.solvers.sojourn.objectives import Objective, evaluate
from schedlab.solvers.sojourn.problem import SojournProblem
from schedlab.solvers.sojourn.tables import lop_tables
from schedlab.solvers.solve import solve


def main() -> None:
    assert os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"
    assert resolve_backend("auto") == "cuda"  # the simulator counts as a GPU
    inst = generate(5, 3)
    rng = np.random.default_rng(0)
    orders = np.array([rng.permutation(5) for _ in range(3)], dtype=np.int64)
    for obj in (Objective("A"), Objective("B"), Objective("TK", 2), Objective("DK", 2)):
        exact = np.array([evaluate(inst, o, obj) for o in orders])
        got = evaluate_orders(inst, orders, obj, backend="cuda", chunk_size=2)
        np.testing.assert_allclose(got, exact, rtol=1e-9, err_msg=obj.label)
        mc_gpu = monte_carlo_orders(inst, orders, obj, samples=40, seed=1, backend="cuda")
        mc_ref = monte_carlo_orders(inst, orders, obj, samples=40, seed=1, backend="numpy")
        np.testing.assert_allclose(mc_gpu.mean, mc_ref.mean, rtol=1e-12, err_msg=obj.label)
        np.testing.assert_allclose(mc_gpu.stderr, mc_ref.stderr, rtol=1e-9, err_msg=obj.label)
    t = lop_tables(inst, Objective("B"))
    np.testing.assert_allclose(
        best_insertion_moves(t, orders, backend="cuda")[:, 0],
        best_insertion_moves(t, orders, backend="numpy")[:, 0],
        rtol=1e-9,
        atol=1e-12,
    )
    before = evaluate_orders(inst, orders, Objective("B"), backend="numpy")
    work = orders.copy()
    res = insertion_sweeps(t, work, 1e-12 * before, backend="cuda")
    after = evaluate_orders(inst, work, Objective("B"), backend="numpy")
    np.testing.assert_allclose(after - before, res[:, 0], rtol=1e-9, atol=1e-9)
    opt = solve(SojournProblem(inst, Objective("B")), "dp").value
    got = solve(
        SojournProblem(inst, Objective("B")),
        "batchlocal",
        options={"backend": "cuda", "restarts": 3, "rounds": 1},
    ).value
    assert abs(got - opt) <= 1e-9 * opt, (got, opt)
    print("OK")


if __name__ == "__main__":
    main()
