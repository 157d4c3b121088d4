"""The Synergy authors' job stream, draw for draw: their Philly-derived single-GPU workload.

The authors' simulator (msr-fiddle/synergy @1bb2bed, `simulator/runner.py`, MIT License) draws
its workload from Python's `random` module (Mersenne Twister) seeded with `--seed` (42):

- durations come from the job list built when the Philly log is first parsed: a fresh
  `random.seed(seed)`, then per kept job two draws, `u = random()` and `v = random()` (their
  `uniform`): `60 * 10**(3 + v)` s when `u >= 0.8`, else `60 * 10**(1.5 + 1.5 v)` s. The list
  is cached on disk, so in every later run these are the durations of jobs 0, 1, 2, ... (only
  the log's length matters; a log of fewer jobs than are drawn would wrap around);
- arrivals and model classes come from a second fresh `random.seed(seed)` at the start of
  the run: per job `random()` for the inter-arrival gap, `ceil(3600 * -ln(1 - u) / load)` whole
  seconds (the first job arrives after one gap from 0), then `randint(0, 9)` (drawn and
  discarded by their model zoo: the class is the one furthest below its target share, as in
  `ClassAssigner`).

This module reproduces that stream with the standard library's `random.Random` (the same
generator and, for `random()` and `randint`, the same algorithm in Python 3.8 and 3.11), so
that `schedlab synergy simulate --stream authors --seed 42` runs the authors' jobs, not a
stream with the same distribution. Work is the duration at the proportional share (seconds).
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from dataclasses import dataclass

from schedlab.experiments.synergy.catalog import ModelCatalog, default_catalog
from schedlab.experiments.synergy.jobs import (
    DEFAULT_CLASS_SPLIT,
    LONG_EXP,
    SHORT_EXP,
    ClassAssigner,
    JobSpec,
)

N_MODELS_DRAWN = 10  # their model zoo's randint(0, len(zoo) - 1): ten models
LONG_FROM = 0.8  # their test `random() >= 0.8` picks the long durations (1 - SHORT_PROB)


@dataclass(frozen=True)
class AuthorsStream:
    """Endless stream of the authors' Philly-derived single-GPU jobs (see module docstring)."""

    load_jobs_per_h: float
    seed: int
    split: tuple[float, float, float] = DEFAULT_CLASS_SPLIT
    max_jobs: int | None = None
    catalog: ModelCatalog | None = None

    def __post_init__(self) -> None:
        if not (self.load_jobs_per_h > 0 and math.isfinite(self.load_jobs_per_h)):
            raise ValueError("load must be a positive number of jobs per hour")

    def __iter__(self) -> Iterator[JobSpec]:
        cat = self.catalog or default_catalog()
        durations = random.Random(self.seed)  # the cached job list's draws
        arrivals = random.Random(self.seed)  # the run's draws
        assigner = ClassAssigner(cat, self.split)
        t = 0
        k = 0
        while self.max_jobs is None or k < self.max_jobs:
            long_job = durations.random() >= LONG_FROM
            v = durations.random()
            lo, hi = LONG_EXP if long_job else SHORT_EXP
            work = 60.0 * 10.0 ** (lo + (hi - lo) * v)
            gap_h = -math.log(1.0 - arrivals.random()) / self.load_jobs_per_h
            t += math.ceil(gap_h * 60 * 60)
            arrivals.randint(0, N_MODELS_DRAWN - 1)
            yield JobSpec(k, float(t), assigner.next(), 1, work)
            k += 1
