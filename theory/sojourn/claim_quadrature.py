"""Claim 5: B equals its linear-ordering form, and ceil(n/2)+1 Gauss-Legendre nodes are exact.

Derivations (each a function the tests call):
- `b_identity_difference(n)`: B from the outcome enumeration minus the linear-ordering form
  with exact integrals, for general symbolic pi_i, m_i, e_i (sympy; zero means the identity).
- `b_integrand_degree(n)`: the largest degree in u of the integrands (n - 1).
- `gauss_legendre_exact_degree(q)`: the highest degree the q-node rule integrates exactly on
  [0, 1], computed in exact rationals (the sum over the nodes of w(x) f(x) is the trace of
  w(C) f(C) for the companion matrix C of the Legendre polynomial, whose eigenvalues are the
  nodes). Expected 2q - 1, so ceil(n/2) nodes already suffice and ceil(n/2)+1 is exact.
Then, per random instance: exact rational B from the enumeration equals the exact rational
linear-ordering form, and the float quadrature with q(n) nodes matches it.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from fractions import Fraction
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import sympy as sp

from schedlab.solvers.sojourn.generate import generate
from schedlab.solvers.sojourn.objectives import Objective, quadrature_nodes, value_B
from schedlab.solvers.sojourn.outcomes import enumerate_value
from schedlab.theory.claims import register_claim
from schedlab.theory.sojourn.evidence import save_instance
from schedlab.theory.sojourn.exact_b import b_enumeration, b_lop
from schedlab.theory.verdict import RunnerFactory, Verdict, instance_seed, settings, verdict_from

EXACT_REL_TOL = 1e-12  # float quadrature vs exact rational value
ENUM_REL_TOL = 1e-10  # float quadrature vs float enumeration (larger n)
WRONG_REL = 1e-9  # what counts as visibly wrong for too few nodes

DEFAULTS: dict[str, dict[str, Any]] = {
    "small": {
        "symbolic_ns": [2, 3],
        "degree_ns": [2, 3, 4],
        "gl_qs": [1, 2, 3, 4, 5],
        "exact_ns": [2, 3, 4, 5],
        "exact_per_n": 4,
        "enum_ns": [8, 10],
        "enum_per_n": 2,
        "large_ns": [50],
        "large_per_n": 2,
    },
    "full": {
        "symbolic_ns": [2, 3, 4],
        "degree_ns": [2, 3, 4, 5, 6],
        "gl_qs": list(range(1, 11)),
        "exact_ns": [2, 3, 4, 5, 6, 7],
        "exact_per_n": 40,
        "enum_ns": [8, 10, 12, 14],
        "enum_per_n": 20,
        "large_ns": [50, 100, 200, 500],
        "large_per_n": 20,
    },
}

QFn = Callable[[int], int]


# ---- symbolic derivations -----------------------------------------------------------------
def _symbols(n: int) -> tuple[list[sp.Symbol], list[sp.Symbol], list[sp.Symbol], sp.Symbol]:
    p = list(sp.symbols(f"pi0:{n}", positive=True))
    m = list(sp.symbols(f"m0:{n}", positive=True))
    e = list(sp.symbols(f"e0:{n}", nonnegative=True))
    return p, m, e, sp.Symbol("u", nonnegative=True)


def b_enumeration_symbolic(n: int) -> sp.Expr:
    """B of the order 0, 1, ..., n-1 by enumerating the success patterns, symbolically.

    Given the pattern, the realized value is affine in each cancelled job's size, so its
    expectation uses E[X_j 1{cancelled}] = e_j (the generic symbols make the order general).
    """
    p, m, e, _ = _symbols(n)
    total = sp.Integer(0)
    for pattern in itertools.product((0, 1), repeat=n):
        succ = [i for i in range(n) if pattern[i]]
        if not succ:
            continue

        def weight(skip: int | None = None, pattern: tuple[int, ...] = pattern) -> sp.Expr:
            w = sp.Integer(1)
            for l in range(n):
                if l != skip:
                    w *= p[l] if pattern[l] else 1 - p[l]
            return w

        acc = sp.Integer(0)
        for i in succ:
            acc += weight() * m[i]
            for j in range(i):
                acc += weight() * m[j] if pattern[j] else weight(skip=j) * e[j]
        total += acc / len(succ)
    return total


def b_lop_symbolic(n: int) -> sp.Expr:
    """B of the order 0..n-1 from the linear-ordering form with exact integrals over u."""
    p, m, e, u = _symbols(n)
    g = [1 - p[l] + p[l] * u for l in range(n)]

    def prod_except(*skip: int) -> sp.Expr:
        return sp.Mul(*[g[l] for l in range(n) if l not in skip])

    total = sp.Integer(0)
    for i in range(n):
        total += p[i] * m[i] * sp.integrate(sp.expand(prod_except(i)), (u, 0, 1))
        for j in range(i):
            h = e[j] + m[j] * p[j] * u
            total += p[i] * sp.integrate(sp.expand(h * prod_except(i, j)), (u, 0, 1))
    return total


@lru_cache(maxsize=8)
def b_identity_difference(n: int) -> sp.Expr:
    """Enumeration minus linear-ordering form, expanded (0 when the identity holds)."""
    return sp.expand(b_enumeration_symbolic(n) - b_lop_symbolic(n))


@lru_cache(maxsize=16)
def b_integrand_degree(n: int) -> int:
    """Largest degree in u of pi_i m_i G/g_i and pi_i h_j G/(g_i g_j) (expected n - 1)."""
    p, m, e, u = _symbols(n)
    g = [1 - p[l] + p[l] * u for l in range(n)]
    G = sp.Mul(*g)
    degs = []
    for i in range(n):
        degs.append(sp.degree(sp.cancel(p[i] * m[i] * G / g[i]), u))
        for j in range(n):
            if j != i:
                h = e[j] + m[j] * p[j] * u
                degs.append(sp.degree(sp.cancel(p[i] * h * G / (g[i] * g[j])), u))
    return int(max(degs))


@lru_cache(maxsize=32)
def gauss_legendre_exact_degree(q: int, max_degree: int | None = None) -> int:
    """Highest d such that the q-node Gauss-Legendre rule on [0, 1] integrates u^0..u^d
    exactly, computed in exact rationals through the companion matrix of P_q."""
    x = sp.Symbol("x")
    P = sp.Poly(sp.legendre_poly(q, x), x)
    monic = P.monic().all_coeffs()
    C = sp.zeros(q, q)
    for i in range(1, q):
        C[i, i - 1] = 1
    for i in range(q):
        C[i, q - 1] = -monic[q - i]
    eye = sp.eye(q)

    def at(poly: sp.Poly) -> sp.Matrix:
        out = sp.zeros(q, q)
        for c in poly.all_coeffs():
            out = out * C + c * eye
        return out

    dP = at(P.diff(x))
    W = 2 * ((eye - C * C) * dP * dP).inv()  # Gauss-Legendre weights on [-1, 1] at the nodes
    U = (C + eye) / 2  # nodes mapped to [0, 1]
    top = 2 * q + 1 if max_degree is None else max_degree
    power = eye
    for d in range(top + 1):
        if (W * power).trace() / 2 != sp.Rational(1, d + 1):
            return d - 1
        power = power * U
    return top


# ---- numeric and exact-rational checks ----------------------------------------------------
def exact_instance_check(n: int, inst_seed: int, q_fn: QFn) -> dict[str, Any]:
    """Exact enumeration vs exact linear-ordering form, and the float quadrature vs both."""
    inst = generate(n, inst_seed, max_checkpoints=2)
    rng = np.random.default_rng(inst_seed)
    order = [int(i) for i in rng.permutation(n)]
    enum = b_enumeration(inst, order)
    lop = b_lop(inst, order)
    exact = float(enum)
    q = q_fn(n)
    quad = value_B(inst, order, q)
    fewer = max(1, (n + 1) // 2 - 1)
    return {
        "n": n,
        "instance_seed": inst_seed,
        "order": order,
        "exact_equal": enum == lop,
        "q": q,
        "rel_err": abs(quad - exact) / abs(exact) if exact else abs(quad),
        "q_fewer": fewer,
        "rel_err_fewer": abs(value_B(inst, order, fewer) - exact) / abs(exact) if exact else 0.0,
        "exact_value": str(Fraction(enum).limit_denominator(10**12)),
    }


def enumeration_check(n: int, inst_seed: int, q_fn: QFn) -> dict[str, Any]:
    """Float quadrature vs float outcome enumeration for larger n (1 checkpoint per job)."""
    inst = generate(n, inst_seed, max_checkpoints=1)
    rng = np.random.default_rng(inst_seed)
    order = [int(i) for i in rng.permutation(n)]
    ref = enumerate_value(inst, order, Objective("B"))
    quad = value_B(inst, order, q_fn(n))
    return {"n": n, "instance_seed": inst_seed, "rel_err": abs(quad - ref) / abs(ref)}


def many_nodes_check(n: int, inst_seed: int, q_fn: QFn) -> dict[str, Any]:
    """For large n: q(n) nodes vs 2n nodes (both exact in theory) on a random order."""
    inst = generate(n, inst_seed)
    rng = np.random.default_rng(inst_seed)
    order = [int(i) for i in rng.permutation(n)]
    a, b = value_B(inst, order, q_fn(n)), value_B(inst, order, 2 * n)
    return {"n": n, "instance_seed": inst_seed, "rel_err": abs(a - b) / abs(b)}


def _symbolic_checks(cfg: dict[str, Any], q_fn: QFn, problems: list[str]) -> dict[str, Any]:
    """The symbolic identity, integrand degrees and quadrature degrees (problems appended)."""
    symbolic = {}
    for n in cfg["symbolic_ns"]:
        diff = b_identity_difference(n)
        symbolic[str(n)] = "0" if diff == 0 else str(diff)[:200]
        if diff != 0:
            problems.append(f"symbolic identity fails at n={n}")
    degrees = {str(n): b_integrand_degree(n) for n in cfg["degree_ns"]}
    for n, d in degrees.items():
        if d != int(n) - 1:
            problems.append(f"integrand degree {d} at n={n}, expected {int(n) - 1}")
    gl = {str(q): gauss_legendre_exact_degree(q) for q in cfg["gl_qs"]}
    for qs, d in gl.items():
        if d != 2 * int(qs) - 1:
            problems.append(f"{qs}-node rule exact to degree {d}, expected {2 * int(qs) - 1}")
    # The node count under test integrates the degree n-1 integrand exactly?
    node_ok = {}
    for n in sorted(set(cfg["degree_ns"] + cfg["exact_ns"])):
        nodes = q_fn(n)
        exact_deg = gl.get(str(nodes))
        if exact_deg is None:
            exact_deg = gauss_legendre_exact_degree(nodes)
        node_ok[str(n)] = {"q": nodes, "exact_to_degree": exact_deg, "needed_degree": n - 1}
        if exact_deg < n - 1:
            problems.append(
                f"q({n}) = {nodes} nodes are exact only to degree {exact_deg} < {n - 1}"
            )

    return {
        "symbolic_identity_difference": symbolic,
        "integrand_degree": degrees,
        "gauss_legendre_exact_degree": gl,
        "nodes_under_test": node_ok,
    }


def _numeric_checks(
    cfg: dict[str, Any], seed: int, q_fn: QFn, problems: list[str]
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Exact-rational, enumeration and many-node rows (problems appended) and their evidence."""
    exact_rows = [
        exact_instance_check(n, instance_seed(seed, n, i), q_fn)
        for n in cfg["exact_ns"]
        for i in range(cfg["exact_per_n"])
    ]
    enum_rows = [
        enumeration_check(n, instance_seed(seed, n, i), q_fn)
        for n in cfg["enum_ns"]
        for i in range(cfg["enum_per_n"])
    ]
    large_rows = [
        many_nodes_check(n, instance_seed(seed, n, i), q_fn)
        for n in cfg["large_ns"]
        for i in range(cfg["large_per_n"])
    ]
    not_equal = [r for r in exact_rows if not r["exact_equal"]]
    if not_equal:
        problems.append(f"exact enumeration != exact linear-ordering form on {len(not_equal)}")
    bad_exact = [r for r in exact_rows if r["rel_err"] > EXACT_REL_TOL]
    if bad_exact:
        problems.append(f"quadrature off the exact value on {len(bad_exact)} instances")
    bad_enum = [r for r in enum_rows if r["rel_err"] > ENUM_REL_TOL]
    if bad_enum:
        problems.append(f"quadrature off the enumeration on {len(bad_enum)} instances")
    bad_large = [r for r in large_rows if r["rel_err"] > ENUM_REL_TOL]
    if bad_large:
        problems.append(f"q(n) nodes disagree with 2n nodes on {len(bad_large)} instances")

    small_n = [r for r in exact_rows if r["n"] >= 3]
    evidence = {
        "exact_rational": {
            "instances": len(exact_rows),
            "enumeration_equals_lop_exactly": len(exact_rows) - len(not_equal),
            "max_rel_err_quadrature": max(r["rel_err"] for r in exact_rows),
            "fewer_nodes_visibly_wrong": sum(r["rel_err_fewer"] > WRONG_REL for r in small_n),
            "fewer_nodes_tried": len(small_n),
        },
        "enumeration_larger_n": {
            "instances": len(enum_rows),
            "max_rel_err": max((r["rel_err"] for r in enum_rows), default=0.0),
        },
        "many_nodes_large_n": {
            "instances": len(large_rows),
            "max_rel_err": max((r["rel_err"] for r in large_rows), default=0.0),
        },
    }
    return exact_rows, evidence


@register_claim(
    "5",
    "b-linear-ordering",
    "B equals the linear-ordering form; ceil(n/2)+1 Gauss-Legendre nodes are exact",
    in_worker=True,
)
def claim_b_linear_ordering(
    size: str,
    seed: int,
    *,
    outdir: Path = Path("results"),
    runner: RunnerFactory | None = None,
    q_fn: QFn = quadrature_nodes,
    **overrides: Any,
) -> Verdict:
    """Claim 5. `q_fn(n)` is the node count under test (inject a smaller one to see it fail)."""
    cfg = settings(DEFAULTS, size, overrides)
    problems: list[str] = []
    symbolic = _symbolic_checks(cfg, q_fn, problems)
    exact_rows, numeric = _numeric_checks(cfg, seed, q_fn, problems)
    not_equal = [r for r in exact_rows if not r["exact_equal"]]
    worst_row = max(exact_rows, key=lambda r: r["rel_err"])
    worst: dict[str, Any] = {
        "value": worst_row["rel_err"],
        "measure": "relative error of the float quadrature vs the exact rational B",
        "n": worst_row["n"],
        "instance_seed": worst_row["instance_seed"],
        "q": worst_row["q"],
        "instance": None,
    }
    files = []
    if problems:
        inst = generate(worst_row["n"], worst_row["instance_seed"], max_checkpoints=2)
        worst["instance"] = save_instance(inst, outdir, "claim5-worst", claim="5", **worst)
        files.append(worst["instance"])
    evidence = {**symbolic, **numeric, "problems": problems, "settings": cfg}
    summary = (
        f"symbolic identity n={cfg['symbolic_ns']}; GL q-node degree 2q-1 for q<="
        f"{max(cfg['gl_qs'])}; exact rationals equal on {len(exact_rows) - len(not_equal)}/"
        f"{len(exact_rows)}; max float err {worst['value']:.2g}"
    )
    if problems:
        summary = f"{len(problems)} problem(s): {problems[0]}"
    return Verdict(
        "5",
        "B equals the linear-ordering form; ceil(n/2)+1 Gauss-Legendre nodes are exact",
        verdict_from(not problems),
        numeric["exact_rational"]["instances"]
        + numeric["enumeration_larger_n"]["instances"]
        + numeric["many_nodes_large_n"]["instances"],
        worst,
        {"exact_rel_tol": EXACT_REL_TOL, "enumeration_rel_tol": ENUM_REL_TOL},
        0.0,
        evidence,
        summary,
        files=files,
    )
