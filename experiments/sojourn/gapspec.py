"""Sojourn's instance families for the gap study (`schedlab gap sojourn`, the figures
`sojourn-heuristics` and `sojourn-gap`).

- "default": objectives A, B, TK and DK (K = n // 2) on `generate` instances (<= 3 checkpoints
  per job); every registered heuristic; the optimum by the subset DP up to DP_MAX_N jobs and by
  CP-SAT above (A and B only: no back end solves TK or DK at that size). Figure
  `sojourn-heuristics`.
- "b-large": objective B as n grows (claim 7's sizes), the index heuristics (tag "index");
  subset DP up to 20 jobs, CP-SAT above and CP-SAT checked against the DP on 10..20 jobs.
  Figure `sojourn-gap`.
- "cyclic": the same on the cyclic family (one large preference component: every optimum
  above 20 jobs needs a solver proof), lpcut as the solver. `sojourn-gap --family cyclic`.
"""

from __future__ import annotations

from typing import Any

from schedlab.experiments.gap.spec import Rung, register_gap
from schedlab.experiments.ladder import pick
from schedlab.solvers.sojourn.generate import generate_problem

DP_MAX_N = 14  # "default": the subset DP up to here for A and B, CP-SAT above
B_DP_MAX_N = 20  # "b-large" and "cyclic": the DP up to here
CROSSCHECK_MIN_N = 10  # from here to B_DP_MAX_N the solver is checked against the DP

#: "default": per size, (n for A and B, n for TK and DK, instances per n, CP-SAT limit s)
DEFAULT_SIZES = {
    "tiny": ([4, 7], [4, 7], 3, 20.0),
    "small": ([5, 8, 12], [5, 8, 12], 30, 60.0),
    "full": ([5, 8, 12, 20, 50, 100], [5, 8, 12, 16], 100, 60.0),
}
#: "b-large" and "cyclic": per size, (n, instances per n, time limit s, max checkpoints)
B_SIZES = {
    "tiny": ([4, 6, 8], 5, 10.0, 3),
    "small": ([5, 8, 11, 14, 17, 20], 20, 10.0, 3),
    "full": ([5, 10, 20, 50, 100, 200], 100, 120.0, 3),
    "cyclic-tiny": ([10, 22], 2, 30.0, 1),
    "cyclic-small": ([10, 15, 20, 30, 45, 60], 10, 60.0, 1),
    "cyclic-full": ([10, 20, 30, 45, 60, 80], 50, 120.0, 1),
}


def extras(row: dict[str, Any]) -> dict[str, Any]:
    """How an exact optimum was proved: CP-SAT's and lpcut's solver calls (0: the pairwise
    minimum argument proved it without one)."""
    return {"solver_calls": row["stats"].get("solver_calls")}


def heuristics_seed(seed: int, rung: Rung, i: int) -> int:
    """Instance i at n jobs: seed x 10^6 + n x 10^3 + i (the same instance for every objective)."""
    return seed * 1_000_000 + int(rung.params["n"]) * 1_000 + i


def b_seed(seed: int, rung: Rung, i: int) -> int:
    """Claim 7's `verdict.instance_seed`: seed x 10^6 + n x 10^4 + i."""
    return seed * 1_000_000 + int(rung.params["n"]) * 10_000 + i


@register_gap(
    "sojourn",
    "default",
    generator=generate_problem,
    sense="min",
    seed_rule=heuristics_seed,
    summary="every heuristic vs the proven optimum for A, B, TK, DK (generate, <= 3 checkpoints)",
)
def default_ladder(size: str) -> list[Rung]:
    """A and B up to 100 jobs at size full, TK and DK up to 16 (the DP's reach)."""
    ab, tkdk, count, limit = pick(size, DEFAULT_SIZES)
    out = []
    for kind in ("A", "B", "TK", "DK"):
        for n in ab if kind in ("A", "B") else tkdk:
            k = max(1, n // 2) if kind in ("TK", "DK") else None
            exact = ("dp",) if n <= DP_MAX_N or k is not None else ("cpsat",)  # CP-SAT: A, B
            params = {"n": n, "objective": kind, "k": k, "max_checkpoints": 3}
            group = kind if k is None else f"{kind} (K = n/2)"
            out.append(Rung(group, n, f"n={n}", kind, params, count, exact, limit))
    return out


def _b_rungs(key: str, family: str, solver: str) -> list[Rung]:
    ns, count, limit, checkpoints = pick(key, B_SIZES)
    out = []
    for n in ns:
        if n <= B_DP_MAX_N:
            exact: tuple[str, ...] = ("dp", solver) if n >= CROSSCHECK_MIN_N else ("dp",)
        else:
            exact = (solver,)
        params = {"n": n, "objective": "B", "max_checkpoints": checkpoints, "family": family}
        out.append(Rung(f"B ({family})", n, f"n={n}", "B", params, count, exact, limit))
    return out


@register_gap(
    "sojourn",
    "b-large",
    generator=generate_problem,
    sense="min",
    seed_rule=b_seed,
    methods="index",
    default=False,
    extras=extras,
    summary="index heuristics vs the exact B optimum as n grows (claim 7's sizes)",
)
def b_ladder(size: str) -> list[Rung]:
    return _b_rungs(size, "default", "cpsat")


@register_gap(
    "sojourn",
    "cyclic",
    generator=generate_problem,
    sense="min",
    seed_rule=b_seed,
    methods="index",
    default=False,
    extras=extras,
    summary="index heuristics vs the exact B optimum on the cyclic family (solver proofs)",
)
def cyclic_ladder(size: str) -> list[Rung]:
    return _b_rungs(f"cyclic-{size}", "cyclic", "lpcut")
