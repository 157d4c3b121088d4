"""Lower bounds on a linear ordering cost by packing preference cycles (lpcut proves with them).

Setting (theory/sojourn/lop.py): value(order) = sum_i c_i + sum_{a before b} W[a, b]. Write
m_ab = min(W[a, b], W[b, a]), cap_ab = |W[a, b] - W[b, a]|, and let T be the preference
tournament (arc a -> b when a first is the cheaper way, ties broken by index).

Lemma (packing bound). For weights mu_C >= 0 on the directed cycles C of T with
sum_{C containing arc e} mu_C <= cap_e for every arc e, every order costs at least
sum_pairs m_ab + sum_C mu_C.
Proof. An order pays m_ab on every pair plus cap_e on each arc e of T that it reverses, so its
pair cost is sum m + sum_{e in R} cap_e, R its reversed arcs. An order is acyclic, so it reverses
at least one arc of every directed cycle: sum_{e in R} cap_e >= sum_{e in R} sum_{C containing
e} mu_C = sum_C mu_C |C cap R| >= sum_C mu_C. QED.

Duality (why nothing is lost against the triangle LP; sketched, and checked numerically). The
LP relaxation with every 3-cycle inequality equals sum m + max_mu sum_C mu_C (a fractional
packing of all directed cycles of T). In y_e = 1 - x_e (the reversed share of arc e of T) the
packing LP is the dual of min sum cap_e y_e subject to sum_{e in C} y_e >= 1 for every cycle C
of T. The 3-cycle rows imply every longer cycle row: adding the row of a triangle
v1 -> v2 -> v3 -> v1 to that of the shorter cycle through the chord v1 -> v3, with
x_13 + x_31 = 1, gives the row of the cycle through v2. Rows of cycles that use arcs against
T do not raise the bound (their duals compose into cycles of T at no gain); this last step is
the one `check_packing` confirms numerically, comparing the packing LP over every enumerated
cycle of T (networkx) with the triangle LP in HiGHS on small instances.

Complementary slackness (what the column generation in `solvers.lop.cyclepack` prices):
if an optimal order has cost equal to the LP bound, every cycle with mu_C > 0 contains exactly
one arc that the order reverses, and every reversed arc is saturated; so it suffices to close
each reversed arc b -> a (a first) by a path a ~> b of arcs the order keeps. When the LP bound
falls short of the optimum by less than the proof tolerance, such cycles may not suffice, which
is why the column generation then prices over all cycles.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from schedlab.solvers.lop.core import preference_tournament
from schedlab.solvers.lop.cyclepack import CyclePacker
from schedlab.solvers.lop.lpcut.model import HighsCutModel
from schedlab.solvers.sojourn.batch import linear_ordering_weights
from schedlab.solvers.sojourn.objectives import Objective
from schedlab.solvers.sojourn.problem import Instance
from schedlab.theory.sojourn.lop import all_orders_costs

B = Objective("B")
REL_TOL = 1e-9


def tournament_cycles(W: np.ndarray) -> list[np.ndarray]:
    """Every directed cycle of the preference tournament, as pair ids (`CyclePacker.pid`)."""
    import networkx as nx

    pref = preference_tournament(W)
    G = nx.DiGraph([(int(a), int(b)) for a, b in zip(*np.nonzero(pref), strict=True)])
    pid = CyclePacker(W).pid
    return [
        np.asarray([pid[c[i], c[(i + 1) % len(c)]] for i in range(len(c))])
        for c in nx.simple_cycles(G)
    ]


def max_packing(W: np.ndarray, cycles: Sequence[np.ndarray], cap_scale: float = 1.0) -> float:
    """sum m + the largest packing of `cycles` (lpcut's master LP, by simplex), capacities
    scaled by `cap_scale` (1: the lemma; anything above 1 packs more than the lemma allows)."""
    cp = CyclePacker(W)
    if not cycles:
        return cp.pair_min
    h, _ = cp.packing_lp(cycles, cap_scale)
    h.run()
    return cp.pair_min - cp.s * float(h.getInfo().objective_function_value)


def triangle_lp(W: np.ndarray) -> float:
    """The LP relaxation with every 3-cycle row (lpcut's model, all triangles, simplex)."""
    n = W.shape[0]
    m = HighsCutModel(W, gap_abs=0.0, seed=0)
    m.add_triangles(list(itertools.combinations(range(n), 3)))
    m.h.run()
    return m.const + m.s * float(m.h.getInfo().objective_function_value)


@dataclass
class PackingCheck:
    """Results over instances: the lemma (packing bound <= optimum), the duality (packing LP =
    triangle LP) and the column generation (its bound proves the optimum)."""

    instances: int = 0
    cyclic_instances: int = 0
    bound_violations: int = 0
    worst_rel_excess: float = -np.inf  # (packing bound - optimum) / optimum, at most ~0
    worst_rel_duality_gap: float = 0.0
    certificates_closed: int = 0
    certificates_tried: int = 0
    detail: list[dict[str, Any]] = field(default_factory=list)

    @property
    def holds(self) -> bool:
        return (
            self.bound_violations == 0
            and self.worst_rel_duality_gap <= REL_TOL
            and self.certificates_closed == self.certificates_tried
        )


def check_packing(instances: Sequence[Instance], cap_scale: float = 1.0) -> PackingCheck:
    """On each instance (n <= 8): the largest packing of every cycle of T against brute force
    (the lemma), against the triangle LP (duality), and `CyclePacker.certify` from the worst
    order, whose bound must reach the optimum within the proof tolerance. `cap_scale` > 1
    packs beyond the capacities (a wrong lemma): the check then fails."""
    out = PackingCheck()
    for inst in instances:
        _, W = linear_ordering_weights(inst, B)
        opt = float(all_orders_costs(W)[1].min())  # brute force: every order (n <= 8)
        cycles = tournament_cycles(W)
        pack = max_packing(W, cycles, cap_scale)
        tri = triangle_lp(W)
        out.instances += 1
        out.cyclic_instances += bool(cycles)
        excess = (pack - opt) / abs(opt)
        out.worst_rel_excess = max(out.worst_rel_excess, excess)
        out.bound_violations += excess > REL_TOL
        if cap_scale == 1.0:
            out.worst_rel_duality_gap = max(out.worst_rel_duality_gap, abs(pack - tri) / abs(opt))
        tol = 0.5 * REL_TOL * abs(opt)
        if cycles and abs(tri - opt) <= tol:  # the LP is tight: the certificate must close
            worst = [int(i) for i in np.argsort(preference_tournament(W).sum(axis=1))]
            res = CyclePacker(W, seed=0).certify(worst, tol)
            out.certificates_tried += 1
            out.certificates_closed += res.closed and abs(res.cost - opt) <= tol
        out.detail.append({"n": inst.n, "cycles": len(cycles), "optimum": opt, "packing": pack,
                           "triangle_lp": tri})  # fmt: skip
    return out
