"""Status cases of SLAQ for tests/core/test_exact_status.py: tiny snapshots off every grid.

The oracle takes each old job's quality from its raw loss history one job at a time (the
predictor `fit` and `JobQuality`, THE evaluation of Q_j(c) = (L_now - L^(c T / W_j ahead)) / M_j:
the data model, not a method under test; the methods fit all jobs in one batch), computes the
cores before sharing itself, and tries every split of the free cores among the old jobs (a plain
product, no DP, no stars and bars). The compiled evaluation defines Q: where 1 - r^h cancels to
the last bit (a geometric fit with r = 1 - 1e-14), numpy's power in `Fit.predict` and the
compiled one differ by 100% of Q.

Cores are integers and every core is given: the minimums are capped at floor(C / J), so a
snapshot always has an allocation and `optimal` is the only status an exact method may give
(BOTH_STATUSES = False). The core count is drawn around the point where the minimums use every
core (J * min_cores - 1, J * min_cores, + 1) and with a few free cores beyond it. Half the
snapshots hold a near-twin of an old job (W_j a hair larger): allocations whose values differ by
about the proof tolerance, which a back end that rounds the qualities coarsely cannot tell apart.
Loss histories, W_j and the epoch range from tiny to large (losses 1e-6 to 1e10, W_j 1e-5 to
1e4), so fitted qualities can span hundreds of orders of magnitude in one snapshot.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from hypothesis import strategies as st

from schedlab.solvers.registry import Entry
from schedlab.solvers.result import PROOF_TOL, SolveResult, Status
from schedlab.solvers.slaq.predict import MODELS, PredictorConfig, fit
from schedlab.solvers.slaq.problem import Job, Snapshot
from schedlab.solvers.slaq.quality import JobQuality, largest_drop

BOTH_STATUSES = False
MAX_OLD = 4
MAX_FREE = 7


def _number(draw: st.DrawFn, lo: float, hi: float) -> float:
    """A float in [lo, hi]: mostly with many decimals, sometimes with one or two."""
    x = draw(st.floats(lo, hi, allow_nan=False, allow_infinity=False))
    if draw(st.integers(0, 4)) == 0:
        x = min(hi, max(lo, round(x, draw(st.integers(1, 2)))))
    return x


@st.composite
def _losses(draw: st.DrawFn) -> list[float]:
    """A loss history of 2..8 points: decreasing with noise, at a tiny to large scale."""
    n = draw(st.integers(2, 8))
    scale = draw(st.sampled_from([1e-6, 1e-2, 1.0, 1.0, 1.0, 3.7, 1e4, 1e9]))
    start = _number(draw, 0.5, 10.0)
    rate = _number(draw, 0.0, 0.9)
    noise = _number(draw, 0.0, 0.3)
    out = []
    for k in range(n):
        wiggle = draw(st.floats(-1.0, 1.0, allow_nan=False))
        out.append(scale * (start * (1 - rate) ** k + noise * wiggle * start / (k + 1)))
    return out


@st.composite
def _snapshot(draw: st.DrawFn) -> Snapshot:
    n_old = draw(st.integers(1, MAX_OLD))
    n_new = draw(st.integers(0, 1))
    jobs = []
    for i in range(n_old + n_new):
        losses = draw(_losses()) if i < n_old else [_number(draw, 0.1, 5.0)]
        w = _number(draw, 0.1, 10.0) * draw(st.sampled_from([1e-4, 1.0, 1.0, 1e3, 1e4]))
        jobs.append(Job(f"j{i}", tuple(losses), w))
    if draw(st.booleans()):  # a near-twin: qualities a hair apart (7e-10 .. 2e-8 relative)
        twin = jobs[draw(st.integers(0, n_old - 1))]
        eps = draw(st.sampled_from([7e-10, 3e-9, 1e-8, 2e-8]))
        jobs.append(Job(f"j{len(jobs)}", twin.losses, twin.core_s_per_iter * (1 + eps)))
    order = draw(st.permutations(range(len(jobs))))
    jobs = [jobs[i] for i in order]
    min_cores = draw(st.integers(0, 4))
    tight = len(jobs) * min_cores
    cores = draw(
        st.one_of(
            st.sampled_from([max(0, tight - 1), tight, tight + 1]),
            st.integers(tight, tight + MAX_FREE),
        )
    )
    snap = Snapshot(
        tuple(jobs),
        cores,
        epoch_s=_number(draw, 0.01, 100.0),
        min_cores=min_cores,
        objective=draw(st.sampled_from(["sum", "maxmin"])),
        model=draw(st.sampled_from(MODELS)),
        decay=_number(draw, 0.05, 1.0),
    )
    return snap


def problems(entry: Entry) -> st.SearchStrategy:
    """Snapshots of 1..4 old jobs (and maybe one new), 0..~10 free cores, both objectives."""
    return _snapshot()


def options(entry: Entry) -> dict:
    return {}


def _base(snap: Snapshot) -> list[int]:
    """Each job's cores before sharing: new jobs the fair share, old ones min(min_cores, fair)."""
    fair = snap.total_cores // len(snap.jobs)
    return [fair if len(j.losses) <= 1 else min(snap.min_cores, fair) for j in snap.jobs]


def _qualities(snap: Snapshot) -> dict[int, list[float]]:
    """Per old job (by position): Q at base + 0..free cores, from its own fit of its losses."""
    base = _base(snap)
    old = [i for i, j in enumerate(snap.jobs) if len(j.losses) > 1]
    free = snap.total_cores - sum(base) if old else 0
    out = {}
    for i in old:
        j = snap.jobs[i]
        f = fit(np.asarray(j.losses, dtype=float), snap.model, PredictorConfig(decay=snap.decay))
        q = JobQuality(f, snap.epoch_s / j.core_s_per_iter, largest_drop(j.losses))
        out[i] = [float(v) for v in q(np.arange(base[i], base[i] + free + 1, dtype=float))]
    return out


def _value(snap: Snapshot, q: dict[int, list[float]], cores: list[int]) -> float:
    base = _base(snap)
    vals = [q[i][cores[i] - base[i]] for i in q]
    if not vals:
        return 0.0
    return math.fsum(vals) if snap.objective == "sum" else min(vals)


_OPTIMA: dict[str, tuple[Status, float]] = {}


def oracle(snap: Snapshot) -> tuple[Status, float | None]:
    """Every split of the free cores among the old jobs: always optimal (one always exists)."""
    key = str(snap.to_dict())
    if key not in _OPTIMA:
        base = _base(snap)
        q = _qualities(snap)
        old = sorted(q)
        free = snap.total_cores - sum(base) if old else 0
        best = -math.inf
        for extra in itertools.product(range(free + 1), repeat=len(old)):
            if sum(extra) != free:
                continue
            cores = list(base)
            for i, e in zip(old, extra, strict=True):
                cores[i] += e
            best = max(best, _value(snap, q, cores))
        _OPTIMA[key] = (Status.OPTIMAL, best if old else 0.0)
    return _OPTIMA[key]


def recheck(snap: Snapshot, result: SolveResult) -> None:
    """Integer cores per job id: new jobs at the fair share, old ones at least their minimum,
    every core given; the objective recomputed from the raw snapshot is the value."""
    alloc = result.solution
    assert alloc is not None
    assert alloc.job_ids == tuple(j.id for j in snap.jobs)
    cores = [int(c) for c in alloc.cores]
    assert all(c == k for c, k in zip(cores, alloc.cores, strict=True))
    base = _base(snap)
    q = _qualities(snap)
    assert all(c >= b for c, b in zip(cores, base, strict=True)), (cores, base)
    assert all(cores[i] == base[i] for i in range(len(cores)) if i not in q), (cores, base)
    if q:
        assert sum(cores) == snap.total_cores, (cores, snap.total_cores)
    value = _value(snap, q, cores)
    assert result.value is not None
    assert abs(value - result.value) <= PROOF_TOL * max(1.0, abs(value)), (value, result.value)
