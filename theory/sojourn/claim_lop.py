"""Claim 8: B's linear-ordering optimum splits into preference blocks (used by MILP/CP-SAT).

The lemma, its proof and the numerical checks live in theory/sojourn/lop.py (owned by the
exact-methods work); this module registers them as a claim. The rule's optimum is compared
with the exact subset DP on random instances and on instances whose pairwise preferences are
cyclic (where a naive pairwise rule fails); the proof's key step (a stable sort by block never
raises the cost) and the closed form of the pairwise difference are checked as well.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from schedlab.solvers.sojourn.generate import generate
from schedlab.solvers.sojourn.problem import Instance
from schedlab.theory.claims import register_claim
from schedlab.theory.sojourn.evidence import save_instance
from schedlab.theory.sojourn.lop import (
    REL_TOL,
    check_block_rule,
    check_stable_sort_step,
    check_swap_identity,
    cyclic_instances,
)
from schedlab.theory.verdict import RunnerFactory, Verdict, instance_seed, settings

TITLE = "B's linear-ordering optimum splits into preference blocks (exact MILP/CP-SAT rely on it)"
# The first three (n, seed, max_checkpoints) found by cyclic_instances(3, n=8): their B pairwise
# preferences contain a 3-cycle (the test re-checks this).
KNOWN_CYCLIC = [(8, 757, 4), (8, 1863, 2), (8, 12633, 4)]
DEFAULTS: dict[str, dict[str, Any]] = {
    "small": {"ns": [5, 7], "per_n": 3, "cyclic": 0, "samples": 10},
    "full": {"ns": [5, 6, 7, 8], "per_n": 50, "cyclic": 10, "samples": 50},
}


@register_claim("8", "lop-blocks", TITLE, in_worker=True)
def claim_lop_blocks(
    size: str,
    seed: int,
    *,
    outdir: Path = Path("results"),
    runner: RunnerFactory | None = None,
    rule: str = "blocks",
    **overrides: Any,
) -> Verdict:
    """Claim 8. `rule="pairwise"` (a wrong rule) shows the check failing on cyclic instances."""
    cfg = settings(DEFAULTS, size, overrides)
    random_insts = [
        generate(n, instance_seed(seed, n, i), max_checkpoints=2)
        for n in cfg["ns"]
        for i in range(cfg["per_n"])
    ]
    specs = list(KNOWN_CYCLIC)
    if cfg["cyclic"] > len(specs):
        specs = cyclic_instances(cfg["cyclic"], n=8)
    cyclic = [generate(n, s, max_checkpoints=mc) for n, s, mc in specs]
    on_random = check_block_rule(random_insts, "B", rule)
    on_cyclic = check_block_rule(cyclic, "B", rule)
    step = check_stable_sort_step(random_insts + cyclic, cfg["samples"], seed)
    swap = check_swap_identity(random_insts + cyclic)
    ok = on_random.holds and on_cyclic.holds and step.holds and swap <= REL_TOL
    worst_ev = max((on_random, on_cyclic), key=lambda e: e.worst_rel_excess)
    worst: dict[str, Any] = {
        "value": worst_ev.worst_rel_excess,
        "measure": f"relative excess of the {rule!r} rule's optimum over the exact DP optimum",
        "instance": None,
    }
    files = []
    if worst_ev.counterexample is not None:
        inst = Instance.from_dict(worst_ev.counterexample["instance"])
        worst["instance"] = save_instance(
            inst, outdir, "claim8-counterexample", claim="8", rule=rule,
            rule_value=worst_ev.counterexample["rule_value"],
            optimum=worst_ev.counterexample["optimum"],
        )  # fmt: skip
        files.append(worst["instance"])
    evidence = {
        "rule": rule,
        "random": vars(on_random) | {"counterexample": None},
        "cyclic": vars(on_cyclic) | {"counterexample": None, "instances_spec": specs},
        "stable_sort_step": {"holds": step.holds, "worst": step.worst_rel_excess},
        "swap_identity_max_rel_err": swap,
        "settings": cfg,
        "source": "theory/sojourn/lop.py (lemma, proof and checks)",
    }
    summary = (
        f"{rule} rule vs DP: worst excess {on_random.worst_rel_excess:.2g} on "
        f"{len(random_insts)} random, {on_cyclic.worst_rel_excess:.2g} on {len(cyclic)} cyclic "
        f"instances; stable-sort step {'ok' if step.holds else 'FAILS'}"
    )
    return Verdict(
        "8",
        TITLE,
        "holds" if ok else "fails",
        len(random_insts) + len(cyclic),
        worst,
        {"rel_tol": REL_TOL},
        0.0,
        evidence,
        summary,
        files=files,
    )
