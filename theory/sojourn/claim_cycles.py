"""Claim 11: B orders each pair by Smith's index at the pair's own mean M_ab (when cycles arise).

Derivation and consequences in theory/sojourn/cycles.py. The check: the identity
W[b,a] - W[a,b] = pi_a pi_b Z_ab (idx_b(M_ab) - idx_a(M_ab)) symbolically (sympy) and
numerically, the predicted preference on every pair of random and cyclic-family instances, and
the monotonicity of the pair means. `at="full-mean"` (compare every pair at one common u, the
wrong rule that would make preferences always transitive) shows the check failing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from schedlab.solvers.sojourn.generate import generate
from schedlab.theory.claims import register_claim
from schedlab.theory.sojourn.cycles import check_monotone_means, check_rule, sympy_identity
from schedlab.theory.verdict import RunnerFactory, Verdict, instance_seed, settings

TITLE = "B prefers a before b iff Smith's index of a is lower at the pair mean M_ab"
DEFAULTS: dict[str, dict[str, Any]] = {
    "small": {"ns": [6, 10, 20], "per_n": 3, "sympy_n": 3},
    "full": {"ns": [5, 10, 20, 50, 100], "per_n": 20, "sympy_n": 4},
}


@register_claim("11", "pair-mean-preference", TITLE, in_worker=True)
def claim_pair_mean(
    size: str,
    seed: int,
    *,
    outdir: Path = Path("results"),
    runner: RunnerFactory | None = None,
    at: str = "pair-mean",
    **overrides: Any,
) -> Verdict:
    """Claim 11 on default- and cyclic-family instances; `at="full-mean"` must fail."""
    cfg = settings(DEFAULTS, size, overrides)
    insts = [
        generate(n, instance_seed(seed, n, i), family=fam)
        for fam in ("default", "cyclic")
        for n in cfg["ns"]
        for i in range(cfg["per_n"])
    ]
    symbolic = sympy_identity(cfg["sympy_n"])
    rule = check_rule(insts, at)
    monotone_bad = check_monotone_means(insts[: len(insts) // 2])
    ok = symbolic and rule.holds and monotone_bad == 0
    summary = (
        f"rule at {at}: {rule.wrong_pairs} of {rule.pairs} decided pairs wrong on {len(insts)} "
        f"instances ({rule.cyclic_instances} with 3-cycles); identity error "
        f"{rule.worst_rel_identity_error:.1e}; sympy {'ok' if symbolic else 'FAILS'}"
    )
    return Verdict(
        "11",
        TITLE,
        "holds" if ok else "fails",
        len(insts),
        {"value": rule.wrong_pairs, "measure": "pairs whose B preference the rule gets wrong",
         "instance": None},
        {"tie_rel_tol": 1e-9, "identity_rel_tol": 1e-9},
        0.0,
        {"rule": vars(rule), "sympy_identity": symbolic, "monotone_violations": monotone_bad,
         "settings": cfg, "source": "theory/sojourn/cycles.py"},
        summary,
    )  # fmt: skip
