"""Claim 12: every order costs at least the pairwise minima plus any packing of preference cycles.

Lemma, proof and the duality with the triangle LP in theory/sojourn/packing.py; the check runs
on cyclic-family instances small enough for brute force (and a few default-family ones):
the largest packing never exceeds the optimum, equals the triangle LP, and the column
generation of `lpcut` (solvers/lop/cyclepack.py) closes each instance from its worst order.
`cap_scale=2` (packing twice the capacities, a wrong lemma) shows the check failing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from schedlab.solvers.sojourn.generate import generate
from schedlab.theory.claims import register_claim
from schedlab.theory.sojourn.packing import REL_TOL, check_packing
from schedlab.theory.verdict import RunnerFactory, Verdict, instance_seed, settings

TITLE = "B's pair cost is at least the pairwise minima plus any packing of preference cycles"
DEFAULTS: dict[str, dict[str, Any]] = {
    "small": {"ns": [6, 7], "per_n": 3, "default_per_n": 1},
    "full": {"ns": [6, 7, 8], "per_n": 10, "default_per_n": 5},
}


@register_claim("12", "cycle-packing-bound", TITLE, in_worker=True)
def claim_packing(
    size: str,
    seed: int,
    *,
    outdir: Path = Path("results"),
    runner: RunnerFactory | None = None,
    cap_scale: float = 1.0,
    **overrides: Any,
) -> Verdict:
    """Claim 12 on cyclic- and default-family instances; `cap_scale=2` must fail."""
    cfg = settings(DEFAULTS, size, overrides)
    insts = [
        generate(n, instance_seed(seed, n, i), family=fam)
        for n in cfg["ns"]
        for fam, count in (("cyclic", cfg["per_n"]), ("default", cfg["default_per_n"]))
        for i in range(count)
    ]
    c = check_packing(insts, cap_scale)
    summary = (
        f"{c.bound_violations} of {c.instances} instances ({c.cyclic_instances} with cycles) "
        f"where the largest packing exceeds the optimum (worst excess {c.worst_rel_excess:.1e}); "
        f"packing LP vs triangle LP {c.worst_rel_duality_gap:.1e}; column generation closed "
        f"{c.certificates_closed} of {c.certificates_tried}"
    )
    evidence = {k: v for k, v in vars(c).items() if k != "detail"}
    evidence |= {"cap_scale": cap_scale, "settings": cfg, "source": "theory/sojourn/packing.py"}
    return Verdict(
        "12",
        TITLE,
        "holds" if c.holds else "fails",
        c.instances,
        {"value": c.worst_rel_excess, "measure": "(largest packing bound - optimum) / optimum",
         "instance": None},
        {"rel_tol": REL_TOL},
        0.0,
        evidence,
        summary,
    )  # fmt: skip
