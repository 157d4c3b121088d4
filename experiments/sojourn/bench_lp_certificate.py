"""Benchmark: the rows lpcut's last LP holds against the rows its dual certificate needs.

lpcut proves a cyclic-family block by the Lagrangian bound of its last LP (triangle rows tight
at the incumbent order, solved by interior point without crossover). That solution lies at the
centre of a large optimal dual face: nearly every row carries a dual, so none can be purged,
and the LP grows round by round. This study takes the largest block of one cyclic instance
through lpcut's LP rounds, then measures on the last LP:
1. interior point (what lpcut ran): its time and the rows with a dual above 1e-6;
2. the same LP with every right-hand side relaxed by a random amount below PERTURB (a relaxed
   valid row is still valid, and the bound is taken with the true right-hand sides, so it stays
   sound): the dual face shrinks to a point, and the interior point returns a sparse dual;
3. a crossover to a basic solution: the support of its dual, a certificate;
4. interior point on the support's rows only.
All bounds are Lagrangian bounds with the true rows, reported as gap / proof slack ((best order
- bound) / lpcut's closing slack: at most 1 proves the block). Run:
`python -m schedlab.experiments.bench bench_lp_certificate [--quick]`.
"""

from __future__ import annotations

import os
import time
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from schedlab.experiments.output import format_table
from schedlab.experiments.registry import register_benchmark
from schedlab.solvers.lop.core import block_gap_abs, preference_blocks
from schedlab.solvers.lop.lpcut.model import HighsCutModel, block_close_abs
from schedlab.solvers.sojourn.batch import linear_ordering_weights
from schedlab.solvers.sojourn.generate import generate
from schedlab.solvers.sojourn.objectives import Objective
from schedlab.solvers.validate import Deadline

PERTURB = 1e-3  # right-hand-side relaxation of step 2, scaled units (costs scaled to max |d| = 1)
SUPPORT_TOL = 1e-6  # a dual above this counts as carried by its row (scaled units)
QUICK_NS = [60]
FULL_NS = [100, 150, 200]


@dataclass
class Certificate:
    """One block's measurements (times in s; gaps as gap / proof slack)."""

    n: int
    seed: int
    lp_rounds: int
    rounds_s: float
    rows: int
    interior_s: float
    interior_support: int
    interior_gap: float
    perturbed_s: float
    perturbed_support: int
    perturbed_gap: float
    crossover_s: float
    basic_support: int
    basic_gap: float
    support_only_s: float
    support_only_gap: float


def _duals(model: HighsCutModel) -> np.ndarray:
    return np.maximum(0.0, -np.asarray(model.h.getSolution().row_dual, dtype=float))


def _run(model: HighsCutModel, crossover: bool) -> float:
    model.h.setOptionValue("solver", "ipm")
    model.h.setOptionValue("run_crossover", "on" if crossover else "off")
    t0 = time.perf_counter()
    model.h.run()
    return time.perf_counter() - t0


def _gap(model: HighsCutModel) -> float:
    """(best order - Lagrangian bound of the current duals) / closing slack; inf without one."""
    lb = model.lagrangian_bound()
    return (model.order_cost - lb) / model.close_abs if lb is not None else float("inf")


def _perturbed(model: HighsCutModel, seed: int) -> tuple[float, int, float]:
    """Step 2 on the current rows; restores the right-hand sides afterwards."""
    rhs = np.concatenate(model.rows_rhs)
    model.set_rhs(rhs + PERTURB * np.random.default_rng(seed).random(len(rhs)))
    took = _run(model, crossover=False)
    support = int((_duals(model) > SUPPORT_TOL).sum())
    gap = _gap(model)  # lagrangian_bound uses the stored, true right-hand sides
    model.set_rhs(rhs)
    return took, support, gap


def study(n: int, seed: int, rounds_limit_s: float = 600.0) -> Certificate:
    """Steps 1-4 on the largest preference block of generate(n, seed, family="cyclic")."""
    _, W = linear_ordering_weights(generate(n, seed, family="cyclic"), Objective("B"))
    blk = max(preference_blocks(W), key=len)
    Wb = W[np.ix_(blk, blk)]
    model = HighsCutModel(Wb, gap_abs=block_gap_abs(Wb), close_abs=block_close_abs(Wb), seed=0)
    t0 = time.perf_counter()
    stats = model.lp_rounds(Deadline.after(rounds_limit_s))  # the bench's own limit
    rounds_s = time.perf_counter() - t0
    rows = int(model.h.getNumRow())
    interior_s = model.last_lp_s
    interior_support = int((_duals(model) > SUPPORT_TOL).sum())
    interior_gap = _gap(model)
    perturbed = _perturbed(model, seed)
    crossover_s = _run(model, crossover=True)
    basic = _duals(model) > SUPPORT_TOL
    basic_gap = _gap(model)
    model.keep_rows(basic)
    support_only_s = _run(model, crossover=False)
    return Certificate(
        n, seed, int(stats["lp_rounds"]), rounds_s, rows, interior_s, interior_support,
        interior_gap, *perturbed, crossover_s, int(basic.sum()), basic_gap, support_only_s,
        _gap(model),
    )  # fmt: skip


@register_benchmark("bench_lp_certificate")
def run(quick: bool = False) -> None:
    """Print steps 1-4 per n (seed 10000 + 100 n, the first instance of `bench_exact`)."""
    print(
        f"cyclic family, objective B, largest block; {os.cpu_count()} cpus, load average "
        f"{os.getloadavg()} (the machine may be shared); rhs relaxation < {PERTURB:g}",
        flush=True,
    )
    rows: list[list[Any]] = []
    for n in QUICK_NS if quick else FULL_NS:
        c = study(n, 10_000 + 100 * n)
        print(f"  {asdict(c)}", flush=True)
        rows.append([
            c.n, c.lp_rounds, f"{c.rounds_s:.1f}", c.rows,
            f"{c.interior_s:.2f} / {c.interior_support} / {c.interior_gap:.3g}",
            f"{c.perturbed_s:.2f} / {c.perturbed_support} / {c.perturbed_gap:.3g}",
            f"{c.crossover_s:.2f} / {c.basic_support} / {c.basic_gap:.3g}",
            f"{c.support_only_s:.2f} / {c.support_only_gap:.3g}",
        ])  # fmt: skip
    headers = ["n", "LP rounds", "rounds s", "rows of last LP",
               "interior point: s / rows with dual / gap", "rhs relaxed: s / rows / gap",
               "crossover: s / basic support / gap", "support rows only: s / gap"]  # fmt: skip
    print(format_table(headers, rows), flush=True)
