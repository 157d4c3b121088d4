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
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from schedlab.solvers.synergy.engine import Allocator, register_allocator
from schedlab.solvers.synergy.placement import Placer, RoundResult


@register_allocator(
    "proportional", summary="GPU-proportional CPU and memory, first fit", tags=("paper",)
)
def proportional(p: Placer, options: Any) -> Allocator:
    """CPU and memory in proportion to GPUs; every job whose GPUs fit runs."""

    def run(
        models: Sequence[int], gpus: Sequence[int], *, time_limit: float | None = None
    ) -> RoundResult:
        st = p.state(len(models))
        pc, pm, prop_t = p.pc, p.pm, p.prop_t
        for j, (k, g) in enumerate(zip(models, gpus, strict=True)):
            if st.total_free == 0:
                break
            if g <= st.total_free:
                ok = p.place(st, j, g, pc, pm, prop_t[k])
                assert ok, "proportional share always fits when the GPUs do"
        return p.result(st, gpus, {})

    return run


@register_allocator(
    "greedy", summary="Synergy-GREEDY: ideal demand, first fit, skip misfits", tags=("paper",)
)
def greedy(p: Placer, options: Any) -> Allocator:
    """Each job asks for its ideal demand; a job that does not fit is skipped this round."""

    def run(
        models: Sequence[int], gpus: Sequence[int], *, time_limit: float | None = None
    ) -> RoundResult:
        st = p.state(len(models))
        skipped = 0
        for j, (k, g) in enumerate(zip(models, gpus, strict=True)):
            if st.total_free == 0:
                break
            if g <= st.total_free and not p.place(
                st, j, g, p.ideal_c[k], p.ideal_m[k], p.ideal_t[k]
            ):
                skipped += 1
        return p.result(st, gpus, {"skipped_no_fit": skipped})

    return run


@register_allocator(
    "tune",
    summary="Synergy-TUNE: ideal, else proportional, else reclaim from peers",
    tags=("paper",),
)
def tune(p: Placer, options: Any) -> Allocator:
    """Ideal demand, else proportional share, else take back peers' excess (never skips)."""

    def run(
        models: Sequence[int], gpus: Sequence[int], *, time_limit: float | None = None
    ) -> RoundResult:
        st = p.state(len(models))
        counts: dict[str, Any] = {
            "at_ideal": 0,
            "at_fallback": 0,
            "reclaimed": 0,
            "peers_reset": 0,
            "unplaced": 0,
        }
        for j, (k, g) in enumerate(zip(models, gpus, strict=True)):
            if st.total_free == 0:
                break
            if g <= st.total_free:
                p.serve(st, j, k, g, p.ideal_c[k], p.ideal_m[k], p.ideal_t[k], models, counts)
        rr = p.result(st, gpus, counts)
        rr.stats["tune_guaranteed"] = p.tune_guaranteed
        return rr

    return run
