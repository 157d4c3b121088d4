"""Monte Carlo kernel: means within confidence intervals of the closed forms, backends identical
on the shared scenarios, and the kernel arithmetic equal to an independent per-scenario oracle."""

from __future__ import annotations

import numpy as np
import pytest

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.kernels import montecarlo as kernel_mc
from schedlab.solvers.sojourn import montecarlo as mc
from schedlab.solvers.sojourn.generate import generate
from schedlab.solvers.sojourn.montecarlo import monte_carlo_orders
from schedlab.solvers.sojourn.objectives import Objective, evaluate
from schedlab.solvers.sojourn.outcomes import realized_values

OBJS = [Objective("A"), Objective("B"), Objective("TK", 2), Objective("DK", 3)]


def orders_for(n, count, seed):
    rng = np.random.default_rng(seed)
    return np.array([rng.permutation(n) for _ in range(count)], dtype=np.int64)


@pytest.mark.parametrize("backend", ["numpy", "cpu"])
def test_means_cover_closed_forms(backend):
    inst = generate(7, 31)
    orders = orders_for(7, 6, 1)
    for obj in OBJS:
        est = monte_carlo_orders(inst, orders, obj, samples=20_000, seed=5, backend=backend)
        exact = np.array([evaluate(inst, o, obj) for o in orders])
        z = np.abs(est.mean - exact) / est.stderr
        # |z| > 4.5 has probability 7e-6 per order for a correct estimator
        assert np.all(z < 4.5), (obj, z)
        lo, hi = est.ci(0.999999)
        assert np.all((lo <= exact) & (exact <= hi))


def test_kernel_equals_per_scenario_oracle():
    # same seed and scenario chunk -> same scenarios; outcomes.realized_values is independent code
    inst = generate(6, 8)
    orders = orders_for(6, 4, 2)
    X, S = next(mc.scenarios(inst, 3000, 11, mc.SCENARIO_CHUNK))
    for obj in OBJS:
        for be in ("numpy", "cpu"):
            est = monte_carlo_orders(inst, orders, obj, samples=3000, seed=11, backend=be)
            for i, o in enumerate(orders):
                v = realized_values(o, X, S, obj)
                assert est.mean[i] == pytest.approx(v.mean(), rel=1e-12)
                assert est.stderr[i] == pytest.approx(v.std(ddof=1) / np.sqrt(3000), rel=1e-9)


def test_backends_identical_and_chunking_invariant(monkeypatch):
    inst = generate(9, 4)
    orders = orders_for(9, 25, 3)
    obj = Objective("B")
    ref = monte_carlo_orders(inst, orders, obj, samples=5000, seed=2, backend="numpy")
    cpu = monte_carlo_orders(inst, orders, obj, samples=5000, seed=2, backend="cpu", chunk_size=4)
    np.testing.assert_allclose(cpu.mean, ref.mean, rtol=1e-12)
    np.testing.assert_allclose(cpu.stderr, ref.stderr, rtol=1e-9)
    # scenarios regenerated for every order chunk (nothing kept) give the same numbers
    monkeypatch.setattr(kernel_mc, "_KEEP_CELLS", 0)
    again = monte_carlo_orders(inst, orders, obj, samples=5000, seed=2, backend="cpu", chunk_size=4)
    np.testing.assert_array_equal(again.mean, cpu.mean)
    # several scenario chunks merge (Chan / Welford) to the one-chunk numbers
    split = monte_carlo_orders(
        inst, orders, obj, samples=5000, seed=2, backend="numpy", scenario_chunk=5000
    )
    np.testing.assert_array_equal(split.mean, ref.mean)


def test_common_random_numbers_and_seeds():
    inst = generate(8, 6)
    orders = orders_for(8, 2, 4)
    obj = Objective("A")
    a = monte_carlo_orders(inst, orders, obj, samples=2000, seed=1, backend="cpu")
    b = monte_carlo_orders(inst, orders, obj, samples=2000, seed=1, backend="cpu")
    c = monte_carlo_orders(inst, orders, obj, samples=2000, seed=2, backend="cpu")
    np.testing.assert_array_equal(a.mean, b.mean)
    assert not np.array_equal(a.mean, c.mean)
    # the difference of two orders is estimated much more precisely than each value
    diff_exact = evaluate(inst, orders[0], obj) - evaluate(inst, orders[1], obj)
    diff = a.mean[0] - a.mean[1]
    assert abs(diff - diff_exact) < 0.5 * max(a.stderr)


def test_invalid_arguments():
    inst = generate(4, 1)
    o = np.array([[0, 1, 2, 3]])
    with pytest.raises(InvalidInput, match="samples: need at least 2"):
        monte_carlo_orders(inst, o, Objective("A"), samples=1)
    with pytest.raises(InvalidInput, match="row 0 is invalid"):
        monte_carlo_orders(inst, np.array([[0, 0, 2, 3]]), Objective("A"), backend="cpu")
