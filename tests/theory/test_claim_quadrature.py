"""Claim 5: the sympy derivations, exact rational arithmetic, and a wrong node count."""

from __future__ import annotations

import math

import numpy as np
import pytest

from schedlab.solvers.sojourn.generate import generate
from schedlab.solvers.sojourn.objectives import Objective, quadrature_nodes, value_B
from schedlab.solvers.sojourn.outcomes import enumerate_value
from schedlab.theory.claims import claims, run_claim
from schedlab.theory.sojourn.claim_quadrature import (
    b_identity_difference,
    b_integrand_degree,
    gauss_legendre_exact_degree,
)
from schedlab.theory.sojourn.exact_b import b_enumeration, b_lop


@pytest.mark.parametrize("n", [2, 3])
def test_symbolic_identity(n):
    assert b_identity_difference(n) == 0


def test_symbolic_identity_is_not_vacuous():
    # dropping one pairwise weight breaks the identity: the comparison can fail
    from schedlab.theory.sojourn.claim_quadrature import b_enumeration_symbolic, b_lop_symbolic

    assert (b_enumeration_symbolic(2) - b_lop_symbolic(2) * 2).expand() != 0


@pytest.mark.parametrize("q", range(1, 8))
def test_gauss_legendre_exact_to_degree_2q_minus_1(q):
    assert gauss_legendre_exact_degree(q) == 2 * q - 1


@pytest.mark.parametrize("n", [2, 3, 4])
def test_integrand_degree(n):
    assert b_integrand_degree(n) == n - 1
    assert gauss_legendre_exact_degree(quadrature_nodes(n)) >= n - 1


@pytest.mark.parametrize("seed", range(6))
def test_exact_rationals_agree_and_match_float_enumeration(seed):
    n = 2 + seed % 4
    inst = generate(n, 900 + seed, max_checkpoints=2)
    order = [int(i) for i in np.random.default_rng(seed).permutation(n)]
    exact = b_enumeration(inst, order)
    assert exact == b_lop(inst, order)
    ref = enumerate_value(inst, order, Objective("B"))
    assert math.isclose(float(exact), ref, rel_tol=1e-12)
    assert math.isclose(value_B(inst, order), float(exact), rel_tol=1e-12)


def test_claim5_holds(tmp_path):
    v = run_claim(claims()["5"], "small", 0, outdir=tmp_path)
    assert v.verdict == "holds", v.evidence["problems"]
    ev = v.evidence["exact_rational"]
    assert ev["enumeration_equals_lop_exactly"] == ev["instances"] > 0
    # too few nodes are visibly wrong on the same instances (the check is not vacuous)
    assert ev["fewer_nodes_visibly_wrong"] == ev["fewer_nodes_tried"] > 0


def test_claim5_fails_with_a_wrong_quadrature_size(tmp_path):
    v = run_claim(claims()["5"], "small", 0, outdir=tmp_path, q_fn=lambda n: max(1, n // 2 - 1))
    assert v.verdict == "fails"
    assert v.evidence["problems"]
    assert v.worst["instance"] is not None
