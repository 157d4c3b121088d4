"""Index functions against brute-force definitions on random discrete distributions."""

from __future__ import annotations

import math

import numpy as np
import pytest

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.sojourn.indices import (
    conditional,
    gamma_index,
    gittins_index,
    level_table,
    pad,
    serpt,
    sevcik_rank,
    smith_priority,
)

REL = 1e-10


def random_dist(rng: np.random.Generator, zeros: bool = False) -> tuple[list[float], list[float]]:
    k = int(rng.integers(1, 6))
    sizes = np.sort(rng.choice(np.arange(1, 200), size=k, replace=False)).astype(float)
    sizes *= rng.uniform(0.1, 3.0)
    p = rng.dirichlet(np.ones(k))
    if zeros and k > 1:
        p[rng.integers(0, k)] = 0.0  # a zero-probability size (maybe the success)
        if p.sum() == 0:
            p[-1] = 1.0
        p /= p.sum()
    return sizes.tolist(), p.tolist()


# ---- brute-force definitions (independent of the implementation) --------------------------
def bf_gamma(s, p, a):
    return p[-1] / sum(pj * max(sj - a, 0.0) for sj, pj in zip(s, p, strict=True))


def bf_serpt(s, p, a):
    num = sum(pj * (sj - a) for sj, pj in zip(s, p, strict=True) if sj > a)
    den = sum(pj for sj, pj in zip(s, p, strict=True) if sj > a)
    return num / den


def bf_quantum_ratio(s, p, a, delta):
    """P(a < X <= a + delta) / E[min(X - a, delta); X > a]."""
    done = sum(pj for sj, pj in zip(s, p, strict=True) if a < sj <= a + delta)
    spent = sum(pj * min(sj - a, delta) for sj, pj in zip(s, p, strict=True) if sj > a)
    return done / spent


def bf_gittins(s, p, a, rng, with_support=True):
    """Sup over a dense grid of quantum lengths (optionally including the support points)."""
    top = max(s) - a
    grid = list(np.linspace(top * 1e-3, top * 1.5, 150)) + list(rng.uniform(0, top * 1.2, 100))
    if with_support:
        grid += [sj - a for sj in s if sj > a]
    return max(bf_quantum_ratio(s, p, a, d) for d in grid if d > 0)


def ages_of(s, p, rng):
    """Checkpoint ages the job can reach plus random ages between sizes."""
    ages = [0.0] + [s[i] for i in range(len(s) - 1) if sum(p[i + 1 :]) > 0]
    ages += [
        float(x)
        for x in rng.uniform(0, s[-1], 3)
        if sum(p[j] for j in range(len(s)) if s[j] > x) > 0
    ]
    return ages


@pytest.mark.parametrize("seed", range(60))
def test_scalar_indices_match_brute_force(seed):
    rng = np.random.default_rng(seed)
    s, p = random_dist(rng, zeros=seed % 3 == 0)
    for a in ages_of(s, p, rng):
        assert math.isclose(gamma_index(s, p, a), bf_gamma(s, p, a), rel_tol=REL, abs_tol=1e-15)
        assert math.isclose(serpt(s, p, a), bf_serpt(s, p, a), rel_tol=REL)
        g = gittins_index(s, p, a)
        assert math.isclose(g, bf_gittins(s, p, a, rng), rel_tol=REL)
        # the sup over quanta that end between sizes never exceeds it
        assert bf_gittins(s, p, a, rng, with_support=False) <= g * (1 + REL)
        assert math.isclose(sevcik_rank(s, p, a), 1.0 / g, rel_tol=REL)
        # the quantum to the end gives 1 / E[remaining]: Gittins is at least that
        assert g >= (1.0 / bf_serpt(s, p, a)) * (1 - REL)
    assert math.isclose(smith_priority(s, p), p[-1] / float(np.dot(s, p)), rel_tol=REL)


def test_level_table_equals_scalar_at_checkpoint_levels():
    rng = np.random.default_rng(7)
    dists = [random_dist(rng, zeros=i % 4 == 0) for i in range(80)]
    t = level_table(pad(dists))
    for i, (s, p) in enumerate(dists):
        for lv in range(len(s)):
            a = 0.0 if lv == 0 else s[lv - 1]
            reachable = sum(p[lv:]) > 0
            if not reachable:
                assert math.isnan(t["gamma"][i, lv]) and math.isnan(t["gittins"][i, lv])
                continue
            assert t["age"][i, lv] == a
            assert math.isclose(t["survival"][i, lv], sum(p[lv:]), rel_tol=REL)
            assert math.isclose(t["gamma"][i, lv], gamma_index(s, p, a), rel_tol=REL, abs_tol=1e-15)
            assert math.isclose(t["gittins"][i, lv], gittins_index(s, p, a), rel_tol=REL)
            assert math.isclose(t["serpt"][i, lv], serpt(s, p, a), rel_tol=REL)
        assert np.all(np.isnan(t["gamma"][i, len(s) :]))  # padding


@pytest.mark.parametrize("seed", range(30))
def test_gamma_never_decreases_with_age(seed):
    rng = np.random.default_rng(100 + seed)
    s, p = random_dist(rng)
    ages = np.sort(rng.uniform(0, s[-1], 50))
    vals = [gamma_index(s, p, float(a)) for a in ages]
    assert all(b >= a * (1 - 1e-12) for a, b in zip(vals, vals[1:], strict=False))


def test_gittins_can_decrease_with_age_unlike_gamma():
    # not vacuous: SERPT grows and Gittins falls after surviving a likely early checkpoint
    s, p = [1.0, 100.0], [0.9, 0.1]
    assert gittins_index(s, p, 1.0) < gittins_index(s, p, 0.0)
    assert serpt(s, p, 1.0) > serpt(s, p, 0.0)
    assert gamma_index(s, p, 1.0) > gamma_index(s, p, 0.0)


def test_hand_values():
    s, p = [3.0, 10.0], [0.4, 0.6]
    assert math.isclose(gamma_index(s, p), 0.6 / 7.2)
    assert math.isclose(gamma_index(s, p, 3.0), 0.6 / (0.6 * 7))  # = P(succ|X>3)/E[X-3|X>3]
    assert math.isclose(gittins_index(s, p), max(0.4 / 3.0, 1.0 / 7.2))
    assert math.isclose(serpt(s, p, 3.0), 7.0)
    assert math.isclose(gittins_index([5.0], [1.0], 2.0), 1.0 / 3.0)


def test_zero_probability_edge_cases():
    # never succeeds: gamma and Smith are 0 (served last), Gittins still finite
    s, p = [2.0, 4.0, 9.0], [0.5, 0.5, 0.0]
    assert gamma_index(s, p) == 0.0 and smith_priority(s, p) == 0.0
    assert math.isclose(gittins_index(s, p), max(0.5 / 2.0, 1.0 / 3.0))
    # a zero-probability checkpoint is still a level; conditioning skips nothing wrongly
    s2, p2 = [1.0, 2.0, 5.0], [0.0, 0.5, 0.5]
    cs, cp = conditional(s2, p2, 1.0)
    assert cs.tolist() == [2.0, 5.0] and np.allclose(cp, [0.5, 0.5])
    t = level_table(pad([(s, p), (s2, p2)]))
    assert math.isnan(t["gamma"][0, 2])  # level 2 of job 0 is unreachable: P(X > 4) = 0
    assert t["survival"][0, 2] == 0.0
    assert math.isclose(t["gamma"][1, 1], 0.5 / 2.5)
    with pytest.raises(InvalidInput, match="age"):
        conditional(s, p, 4.0)  # P(X > 4) = 0
    with pytest.raises(InvalidInput, match="age"):
        gamma_index([3.0], [1.0], 3.0)  # at the success size the job has left


def test_bad_distributions_are_rejected():
    with pytest.raises(InvalidInput, match="increasing"):
        gamma_index([3.0, 2.0], [0.5, 0.5])
    with pytest.raises(InvalidInput, match="sum to 1"):
        gamma_index([1.0, 2.0], [0.5, 0.6])
    with pytest.raises(InvalidInput, match="same nonzero length"):
        gamma_index([1.0, 2.0], [1.0])
    with pytest.raises(InvalidInput, match="age"):
        serpt([1.0], [1.0], -1.0)
