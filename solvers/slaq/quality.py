"""Quality of giving a job c cores for one epoch: Q_j(c) = (L_now - L^(now + c T / W_j)) / M_j.

L^ is the job's fitted loss predictor (solvers.slaq.predict), T the epoch, W_j the job's
core-seconds per iteration (perfect scaling: c cores run c T / W_j iterations, fractional
iterations included) and M_j the largest single-iteration loss drop so far (1 when the loss
never dropped), so that qualities of different jobs are comparable. New jobs (<= 1 loss
point) have no quality: they get the fair share.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from schedlab.solvers.slaq.predict import (
    FAMILY_CODES,
    Fit,
    PredictorConfig,
    fit_many,
    packed,
)
from schedlab.solvers.slaq.problem import Snapshot
from schedlab.solvers.validate import check_alloc


@dataclass(frozen=True)
class JobQuality:
    """Q_j as a function of cores (vectorized)."""

    fit: Fit
    iters_per_core: float  # T / W_j
    norm: float  # M_j

    @cached_property
    def packed(self) -> tuple[int, np.ndarray]:
        """The fit's (family code, params) for the compiled evaluator."""
        return packed(self.fit)

    def __call__(self, cores: np.ndarray | float) -> np.ndarray:
        """Q at `cores` (the one compiled evaluation, `alloc_core.q_values`)."""
        from schedlab.solvers.slaq.alloc_core import q_values  # compiled: imported on use

        c = np.asarray(cores, dtype=float)
        code, p = self.packed
        f = self.fit
        flat = q_values(code, p, f.k_now, f.l_now, self.iters_per_core, self.norm, c.ravel())
        return flat.reshape(c.shape)


_NAMES = {c: f for f, c in FAMILY_CODES.items()}
_N_PARAMS = {"inverse-poly": 5, "exponential": 4, "naive": 1, "geometric": 1, "constant": 0}


def unpacked(code: int, params: np.ndarray, k_now: float, l_now: float) -> Fit:
    """The `Fit` (predictor only: no residuals or notes) of a packed fit (`predict.packed`)."""
    fam = _NAMES[int(code)]
    vals = tuple(float(v) for v in params[: _N_PARAMS[fam]])
    return Fit(fam, vals, float(k_now), float(l_now))


class QualityBatch(Sequence[JobQuality]):
    """Q_j of many jobs as arrays (family code, params (J, 5), k_now, l_now, T / W_j, M_j):
    the compiled allocators' input (`greedy.greedy_extra`) without a Python object per job;
    `batch[i]` builds job i's `JobQuality` (for allocators that call Q_j one job at a time)."""

    def __init__(
        self,
        code: np.ndarray,
        params: np.ndarray,
        k_now: np.ndarray,
        l_now: np.ndarray,
        iters_per_core: np.ndarray,
        norm: np.ndarray,
    ):
        self.code = np.ascontiguousarray(code, dtype=np.int64)
        self.params = np.ascontiguousarray(params, dtype=float).reshape(len(self.code), 5)
        self.k_now, self.l_now, self.iters_per_core, self.norm = (
            np.ascontiguousarray(a, dtype=float) for a in (k_now, l_now, iters_per_core, norm)
        )

    @classmethod
    def of(cls, qs: Sequence[JobQuality]) -> QualityBatch:
        """The arrays of a list of `JobQuality`."""
        if isinstance(qs, QualityBatch):
            return qs
        n = len(qs)
        code, p = np.zeros(n, dtype=np.int64), np.zeros((n, 5))
        kn, ln, ipc, norm = (np.zeros(n) for _ in range(4))
        for i, q in enumerate(qs):
            code[i], p[i] = q.packed
            kn[i], ln[i], ipc[i], norm[i] = q.fit.k_now, q.fit.l_now, q.iters_per_core, q.norm
        return cls(code, p, kn, ln, ipc, norm)

    def __len__(self) -> int:
        return len(self.code)

    def __getitem__(self, i):  # type: ignore[no-untyped-def, override]
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        f = unpacked(self.code[i], self.params[i], self.k_now[i], self.l_now[i])
        return JobQuality(f, float(self.iters_per_core[i]), float(self.norm[i]))

    def families(self) -> set[str]:
        """The fitted families present (e.g. to know whether every Q_j is concave)."""
        return {_NAMES[int(c)] for c in np.unique(self.code)}

    def evaluator(self) -> tuple[np.ndarray, ...]:
        """(code, params, k_now, l_now, T / W_j, M_j): `alloc_core`'s argument order."""
        return self.code, self.params, self.k_now, self.l_now, self.iters_per_core, self.norm


def largest_drop(losses: Sequence[float] | np.ndarray) -> float:
    """M_j: the largest single-iteration loss drop so far, 1.0 when the loss never dropped."""
    if len(losses) < 2:
        return 1.0
    drop = float(np.max(-np.diff(np.asarray(losses, dtype=float))))
    return drop if drop > 0 else 1.0


@dataclass(frozen=True)
class QualityModel:
    """Everything an allocator needs: per job its base cores and Q_j (None for new jobs)."""

    base: tuple[int, ...]
    free: int
    qualities: tuple[JobQuality | None, ...]

    @property
    def old(self) -> list[int]:
        """Indices of the jobs that share the free cores."""
        return [i for i, q in enumerate(self.qualities) if q is not None]

    def check_size(self, bytes_per_entry: float, method: str) -> None:
        """Refuse (before building) a model of `bytes_per_entry` per (old job, free core count):
        the exact methods' tables and models grow with jobs x free cores."""
        entries = float(len(self.old)) * (self.free + 1)
        check_alloc(
            entries * (8 + bytes_per_entry),
            f"method slaq/{method}: {len(self.old):,} jobs x {self.free + 1:,} core counts",
            fix="use method greedy (any size), or fewer cores or jobs",
        )

    def tables(self) -> list[np.ndarray]:
        """Per old job: Q at base + 0..free cores (the exact methods' data)."""
        extra = np.arange(self.free + 1)
        return [self.qualities[i](self.base[i] + extra) for i in self.old]  # type: ignore[misc]

    def values(self, cores: Sequence[int]) -> list[float | None]:
        return [
            None if q is None else float(q(c)) for q, c in zip(self.qualities, cores, strict=True)
        ]

    def objective(self, cores: Sequence[int], objective: str) -> float:
        """Sum or minimum of Q over the old jobs (0 when there are none)."""
        vals = [v for v in self.values(cores) if v is not None]
        if not vals:
            return 0.0
        return float(sum(vals)) if objective == "sum" else float(min(vals))

    def feasible(self, cores: Sequence[int]) -> bool:
        """Integer cores, at least the base, the free cores all given to old jobs."""
        if len(cores) != len(self.base) or any(
            c < b for c, b in zip(cores, self.base, strict=True)
        ):
            return False
        old = set(self.old)
        if any(
            c != b for i, (c, b) in enumerate(zip(cores, self.base, strict=True)) if i not in old
        ):
            return False
        return sum(cores) - sum(self.base) == self.free


def quality_model(snap: Snapshot) -> QualityModel:
    """Fit every old job's predictor (batched) and build its Q_j."""
    old = [j for j in snap.jobs if not j.is_new]
    fits = iter(
        fit_many([np.asarray(j.losses) for j in old], snap.model, PredictorConfig(decay=snap.decay))
    )
    quals = tuple(
        None
        if j.is_new
        else JobQuality(next(fits), snap.epoch_s / j.core_s_per_iter, largest_drop(j.losses))
        for j in snap.jobs
    )
    return QualityModel(tuple(snap.base_cores()), snap.free_cores(), quals)
