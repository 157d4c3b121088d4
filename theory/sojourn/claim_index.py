"""Claim 6: the success-only index gamma(a) = pi / E[(X - a)^+] never decreases with age a.

(For a job alive at age a, P(success | X > a) / E[X - a | X > a] is the same quantity.)
Derivations, each a function the tests call: on every interval between consecutive sizes,
with sizes written as sums of positive gaps and the age as the interval's left end plus t
(t >= 0, with r > 0 left to the next size), sympy certifies d gamma / da >= 0 from the
positivity assumptions alone, and that gamma is continuous at every size, for the general
k-point distribution (k = 2, 3, ...). Numerically: gamma on a fine age grid of random jobs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import sympy as sp

from schedlab.solvers.sojourn.generate import generate
from schedlab.solvers.sojourn.problem import Instance
from schedlab.theory.claims import register_claim
from schedlab.theory.sojourn.evidence import save_instance
from schedlab.theory.verdict import RunnerFactory, Verdict, settings, verdict_from

REL_TOL = 1e-12
DEFAULTS: dict[str, dict[str, Any]] = {
    "small": {"symbolic_ks": [2, 3], "jobs": 300, "grid": 60, "max_checkpoints": 5},
    "full": {"symbolic_ks": [2, 3, 4], "jobs": 20_000, "grid": 200, "max_checkpoints": 8},
}

IndexFn = Callable[[Sequence[float], Sequence[float], float], float]


def success_index(sizes: Sequence[float], probs: Sequence[float], age: float) -> float:
    """gamma(a) = pi / E[(X - a)^+] (infinite once a reaches the success size)."""
    rest = sum(p * (s - age) for s, p in zip(sizes, probs, strict=True) if s > age)
    return probs[-1] / rest if rest > 0 else float("inf")


def inverse_mean_residual(sizes: Sequence[float], probs: Sequence[float], age: float) -> float:
    """1 / E[X - a | X > a]: NOT monotone in general (a broken input for the check)."""
    tail = sum(p for s, p in zip(sizes, probs, strict=True) if s > age)
    rest = sum(p * (s - age) for s, p in zip(sizes, probs, strict=True) if s > age)
    return tail / rest if rest > 0 else float("inf")


# ---- symbolic -------------------------------------------------------------------------------
@lru_cache(maxsize=8)
def index_monotonicity_certificate(k: int) -> dict[str, Any]:
    """For the general k-point distribution: per interval, d gamma/da and sympy's verdict
    that it is >= 0; per inner size, the jump of gamma there (must simplify to 0)."""
    d = sp.symbols(f"d1:{k + 1}", positive=True)  # size gaps: s_l = d_1 + ... + d_l
    p = sp.symbols(f"p1:{k + 1}", positive=True)  # outcome probabilities (any positive weights)
    a = sp.Symbol("a", nonnegative=True)
    s = [sum(d[: l + 1]) for l in range(k)]

    def gamma_on(l: int) -> sp.Expr:
        """gamma(a) for a in [s_{l-1}, s_l) (s_{-1} = 0): sizes s_l.. lie above a."""
        return p[-1] / sum(p[j] * (s[j] - a) for j in range(l, k))

    intervals = []
    for l in range(k):
        t, r = sp.Symbol("t", nonnegative=True), sp.Symbol("r", positive=True)
        left = s[l - 1] if l > 0 else sp.Integer(0)
        # a = left + t with d_l = t + r (r > 0): a lies inside the interval
        deriv = sp.diff(gamma_on(l), a)
        sub = sp.factor(sp.simplify(deriv.subs(a, left + t).subs(d[l], t + r)))
        intervals.append(
            {
                "interval": l,
                "derivative": str(sp.factor(sp.simplify(deriv))),
                "nonnegative": bool(sub.is_nonnegative),
            }
        )
    jumps = []
    for l in range(k - 1):
        jump = sp.simplify(gamma_on(l + 1).subs(a, s[l]) - gamma_on(l).subs(a, s[l]))
        jumps.append({"at_size": l, "jump": str(jump), "zero": jump == 0})
    holds = all(i["nonnegative"] for i in intervals) and all(j["zero"] for j in jumps)
    return {"k": k, "intervals": intervals, "jumps": jumps, "holds": holds}


# ---- numeric --------------------------------------------------------------------------------
def random_jobs(count: int, seed: int, max_checkpoints: int) -> list[Instance]:
    """Random one-job instances: half from the project generator, half with skewed weights."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        if i % 2 == 0:
            out.append(generate(1, int(rng.integers(2**31)), max_checkpoints=max_checkpoints))
            continue
        c = int(rng.integers(1, max_checkpoints + 1))
        m = float(np.exp(rng.uniform(0, np.log(1000))))
        sizes = sorted(set(float(x) for x in rng.uniform(0.001, 0.999, c) * m)) + [m]
        probs = rng.dirichlet(np.full(len(sizes), rng.uniform(0.05, 2.0)))
        probs = np.maximum(probs, 1e-9)
        out.append(Instance.from_arrays([sizes], [(probs / probs.sum()).tolist()]))
    return out


def worst_decrease(
    sizes: Sequence[float], probs: Sequence[float], grid: int, index_fn: IndexFn
) -> tuple[float, float]:
    """Largest relative decrease of the index between consecutive ages on [0, m).

    Ages: an even grid plus every size and a point just below it. Returns (decrease, age).
    """
    m = sizes[-1]
    ages = set(np.linspace(0, m, grid, endpoint=False).tolist())
    for s in sizes[:-1]:
        ages.update({s, s * (1 - 1e-9)})
    ages_sorted = sorted(a for a in ages if a < m)
    vals = [index_fn(sizes, probs, a) for a in ages_sorted]
    worst, where = 0.0, 0.0
    for a, v0, v1 in zip(ages_sorted[1:], vals, vals[1:], strict=False):
        drop = (v0 - v1) / abs(v0) if v0 > 0 else 0.0
        if drop > worst:
            worst, where = drop, a
    return worst, where


@register_claim(
    "6",
    "success-index-monotone",
    "The success-only index pi / E[(X - a)^+] never decreases as a job ages",
    in_worker=True,
)
def claim_success_index_monotone(
    size: str,
    seed: int,
    *,
    outdir: Path = Path("results"),
    runner: RunnerFactory | None = None,
    index_fn: IndexFn = success_index,
    **overrides: Any,
) -> Verdict:
    """Claim 6. `index_fn` may be replaced (e.g. by `inverse_mean_residual`) to see it fail."""
    cfg = settings(DEFAULTS, size, overrides)
    certs = {str(k): index_monotonicity_certificate(k) for k in cfg["symbolic_ks"]}
    symbolic_ok = all(c["holds"] for c in certs.values())
    jobs = random_jobs(cfg["jobs"], seed, cfg["max_checkpoints"])
    worst_v, worst_i, worst_a = -1.0, 0, 0.0
    fails = 0
    for i, inst in enumerate(jobs):
        j = inst.jobs[0]
        v, a = worst_decrease(j.sizes, j.probs, cfg["grid"], index_fn)
        fails += v > REL_TOL
        if v > worst_v:
            worst_v, worst_i, worst_a = v, i, a
    numeric_ok = fails == 0
    worst: dict[str, Any] = {
        "value": worst_v,
        "measure": "largest relative decrease of the index between consecutive ages",
        "age": worst_a,
        "job": jobs[worst_i].jobs[0].to_dict(),
        "instance": None,
    }
    files = []
    if not numeric_ok:
        worst["instance"] = save_instance(
            jobs[worst_i], outdir, "claim6-worst", claim="6", index=index_fn.__name__, **worst
        )
        files.append(worst["instance"])
    evidence = {
        "symbolic": {
            k: {"holds": c["holds"], "intervals": c["intervals"], "jumps": c["jumps"]}
            for k, c in certs.items()
        },
        "index": getattr(index_fn, "__name__", "custom"),
        "numeric_jobs": len(jobs),
        "numeric_jobs_with_decrease": int(fails),
        "settings": cfg,
        "note": "the symbolic check is of pi / E[(X-a)^+] itself, independent of index_fn",
    }
    summary = (
        f"sympy: derivative >= 0 and no jumps for k={cfg['symbolic_ks']} "
        f"({'certified' if symbolic_ok else 'NOT certified'}); numeric: {fails}/{len(jobs)} "
        f"jobs with a decrease (worst {max(worst_v, 0):.3g})"
    )
    return Verdict(
        "6",
        "The success-only index pi / E[(X - a)^+] never decreases as a job ages",
        verdict_from(symbolic_ok and numeric_ok),
        len(jobs),
        worst,
        {"rel_tol": REL_TOL},
        0.0,
        evidence,
        summary,
        files=files,
    )
