"""Objective B in exact rational arithmetic (fractions.Fraction), two independent ways.

`b_enumeration` sums (1/N) sum_i I_i C_i over every joint outcome; `b_lop` evaluates the
linear-ordering form c_i + sum_{j before i} W_ji with the integrals over u in [0, 1] done
exactly on polynomial coefficients. Instance numbers are converted exactly (a binary float is
a rational), or rounded to small denominators by `rationalize` when they came from a grid.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from fractions import Fraction

from schedlab.solvers.sojourn.problem import Instance

Poly = list[Fraction]  # coefficients, lowest degree first


def rationalize(x: float, max_den: int = 1000) -> Fraction:
    """The simplest fraction equal to `x` as a float (so 0.4 -> 2/5), else x exactly."""
    f = Fraction(x).limit_denominator(max_den)
    return f if float(f) == x else Fraction(x)


def exact_jobs(
    inst: Instance, convert: Callable[[float], Fraction] = Fraction
) -> list[tuple[list[Fraction], list[Fraction]]]:
    """(sizes, probs) per job as fractions; probabilities renormalized to sum to exactly 1."""
    out = []
    for j in inst.jobs:
        probs = [convert(p) for p in j.probs]
        total = sum(probs)
        out.append(([convert(s) for s in j.sizes], [p / total for p in probs]))
    return out


def b_enumeration(
    inst: Instance, order: Sequence[int], convert: Callable[[float], Fraction] = Fraction
) -> Fraction:
    """Exact B of `order` by enumerating every joint outcome."""
    jobs = exact_jobs(inst, convert)
    total = Fraction(0)
    for outcome in itertools.product(*[range(len(s)) for s, _ in jobs]):
        prob = Fraction(1)
        for (_, p), l in zip(jobs, outcome, strict=True):
            prob *= p[l]
        if prob == 0:
            continue
        t, acc, n_succ = Fraction(0), Fraction(0), 0
        for i in order:
            sizes, _ = jobs[i]
            t += sizes[outcome[i]]
            if outcome[i] == len(sizes) - 1:
                acc += t
                n_succ += 1
        if n_succ:
            total += prob * acc / n_succ
    return total


def _mul(a: Poly, b: Poly) -> Poly:
    out = [Fraction(0)] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            out[i + j] += x * y
    return out


def _integral01(a: Poly) -> Fraction:
    return sum((c / (d + 1) for d, c in enumerate(a)), Fraction(0))


def b_lop_weights(
    inst: Instance, convert: Callable[[float], Fraction] = Fraction
) -> tuple[list[Fraction], list[list[Fraction]]]:
    """Exact (c, W) of B's linear-ordering form: c_i = pi_i m_i int G/g_i du and
    W[j][i] = pi_i int G h_j / (g_i g_j) du, with g_l = 1 - pi_l + pi_l u, h_j = e_j +
    m_j pi_j u, G = prod g_l (products of the other factors, so no division)."""
    jobs = exact_jobs(inst, convert)
    n = len(jobs)
    pi = [p[-1] for _, p in jobs]
    m = [s[-1] for s, _ in jobs]
    e = [sum((s[l] * p[l] for l in range(len(s) - 1)), Fraction(0)) for s, p in jobs]
    g = [[1 - pi[l], pi[l]] for l in range(n)]

    def prod_except(skip: set[int]) -> Poly:
        out: Poly = [Fraction(1)]
        for l in range(n):
            if l not in skip:
                out = _mul(out, g[l])
        return out

    c = [pi[i] * m[i] * _integral01(prod_except({i})) for i in range(n)]
    W = [[Fraction(0)] * n for _ in range(n)]
    for i in range(n):
        for j in range(n):
            if i != j:
                W[j][i] = pi[i] * _integral01(_mul(prod_except({i, j}), [e[j], m[j] * pi[j]]))
    return c, W


def b_lop(
    inst: Instance, order: Sequence[int], convert: Callable[[float], Fraction] = Fraction
) -> Fraction:
    """Exact B of `order` from the linear-ordering form with exact integrals."""
    c, W = b_lop_weights(inst, convert)
    o = list(order)
    total = sum(c, Fraction(0))
    for y in range(len(o)):
        for x in range(y):
            total += W[o[x]][o[y]]
    return total
