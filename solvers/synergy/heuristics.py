"""GPU-proportional, Synergy-GREEDY and Synergy-TUNE: fast allocators (and solve methods).

All three place jobs in policy order with the shared placement (`placement.py`); every job whose
GPUs still fit cluster-wide is considered.

- proportional: every such job runs at the proportional share
  (cpus_per_server / gpus_per_server, mem_gb_per_server / gpus_per_server per GPU).
- greedy: every such job asks for its ideal (c, m); if it does not fit, it is skipped this
  round.
- tune: ideal first; else the proportional share (a job whose ideal is at most the proportional
  share in both resources keeps its ideal); else, on the servers it would use (one server with
  enough free GPUs for a multi-GPU job, else the servers with fewest free GPUs), jobs already
  placed there that use more than the proportional share in both resources are reset to the
  proportional share, most over-provisioned first (fewest servers spanned, then most CPUs per
  GPU, then most memory per GPU), until the job fits; then it is placed. When every model's ideal
  is comparable with the proportional share (<= or >= in both resources; true for the shipped
  profiles on the default cluster), this always succeeds: TUNE runs exactly the jobs
  GPU-proportional runs, none below its proportional throughput (`tune_guaranteed`).

The registered allocators (`register_method` with the tag "fast": factories of the `Allocator`
protocol of `allocators.py`) run a whole round compiled (`packing.pack_round`, via
`Placer.pack`); `reference_round` is the same logic job by job in Python on `Placer.place` /
`Placer.serve` (the readable definition; tests check both agree).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from schedlab.solvers.options import NoOptions
from schedlab.solvers.solve import register_method
from schedlab.solvers.synergy.allocators import FAST_TAG, SUBJECT, Allocator
from schedlab.solvers.synergy.placement import Placer, RoundResult
from schedlab.solvers.validate import NO_DEADLINE, Deadline

_STATS = {
    "proportional": (),
    "greedy": ("skipped_no_fit",),
    "tune": ("at_ideal", "at_fallback", "reclaimed", "peers_reset", "unplaced"),
}


class Packed:
    """A compiled heuristic (the `Allocator` protocol): one whole round in `Placer.pack`."""

    def __init__(self, p: Placer, name: str) -> None:
        # compiled (numba): imported when a round is first packed, not to list the methods
        from schedlab.solvers.synergy import packing

        modes = {
            "proportional": packing.PROPORTIONAL,
            "greedy": packing.GREEDY,
            "tune": packing.TUNE,
        }
        self.p, self.name, self.mode = p, name, modes[name]

    def __call__(
        self, models: np.ndarray, gpus: np.ndarray, *, deadline: Deadline = NO_DEADLINE
    ) -> RoundResult:
        rr = self.p.pack(self.mode, models, gpus)
        rr.stats = {k: rr.stats[k] for k in _STATS[self.name]}
        if self.name == "tune":
            rr.stats["tune_guaranteed"] = self.p.tune_guaranteed
        return rr


@register_method(
    SUBJECT,
    "proportional",
    exact=False,
    tags=("paper", FAST_TAG),
    summary="GPU-proportional CPU and memory, first fit",
)
def proportional(p: Placer, options: NoOptions) -> Allocator:
    """CPU and memory in proportion to GPUs; every job whose GPUs fit runs."""
    return Packed(p, "proportional")


@register_method(
    SUBJECT,
    "greedy",
    exact=False,
    tags=("paper", FAST_TAG),
    summary="Synergy-GREEDY: ideal demand, first fit, skip misfits",
)
def greedy(p: Placer, options: NoOptions) -> Allocator:
    """Each job asks for its ideal demand; a job that does not fit is skipped this round."""
    return Packed(p, "greedy")


@register_method(
    SUBJECT,
    "tune",
    exact=False,
    tags=("paper", FAST_TAG),
    summary="Synergy-TUNE: ideal, else proportional, else reclaim from peers",
)
def tune(p: Placer, options: NoOptions) -> Allocator:
    """Ideal demand, else proportional share, else take back peers' excess (never skips)."""
    return Packed(p, "tune")


def reference_round(
    p: Placer, name: str, models: Sequence[int] | np.ndarray, gpus: Sequence[int] | np.ndarray
) -> RoundResult:
    """The heuristic `name` job by job in Python (the definition the compiled one follows)."""
    ks: list[int] = np.asarray(models).tolist()
    gs: list[int] = np.asarray(gpus).tolist()
    st = p.state(len(ks))
    counts: dict[str, Any] = {k: 0 for k in _STATS[name]}
    for j, (k, g) in enumerate(zip(ks, gs, strict=True)):
        if st.total_free == 0:
            break
        if g > st.total_free:
            continue
        if name == "proportional":
            ok = p.place(st, j, g, p.pc, p.pm, p.prop_t[k])
            assert ok, "proportional share always fits when the GPUs do"
        elif name == "greedy":
            if not p.place(st, j, g, p.ideal_c[k], p.ideal_m[k], p.ideal_t[k]):
                counts["skipped_no_fit"] += 1
        else:
            p.serve(st, j, k, g, p.ideal_c[k], p.ideal_m[k], p.ideal_t[k], ks, counts)
    rr = p.result(st, gs, counts)
    if name == "tune":
        rr.stats["tune_guaranteed"] = p.tune_guaranteed
    return rr
