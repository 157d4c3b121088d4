"""Candidate per-GPU configurations (CPUs, GB, throughput) of each model on a cluster.

The configurations are the profile's grid points plus the cluster's proportional share (when it
is not a grid point) that fit one server per GPU. With `floor=True` only those at or above the
model's proportional throughput are kept (the no-job-below-proportional rule); points of zero
throughput only for a model whose proportional throughput is zero too. Dominated
configurations (another one needs no more CPU and no more memory and is at least as fast) are
dropped: swapping to the dominating one never breaks a capacity and never lowers throughput,
so every optimum survives the pruning (the enumeration oracle checks this on the full grid).
"""

from __future__ import annotations

from functools import cache

from schedlab.solvers.synergy.allocation import capacity_limit
from schedlab.solvers.synergy.problem import Cluster
from schedlab.solvers.synergy.profiles import TPUT_TOL, ProfileSet

Config = tuple[float, float, float]  # (cpus_per_gpu, mem_gb_per_gpu, tput_per_gpu)


def all_configs(
    profiles: ProfileSet, cluster: Cluster, model: int, *, floor: bool = True
) -> list[Config]:
    """Every candidate configuration (no dominance pruning), sorted by (CPUs, GB)."""
    pc, pm = cluster.prop_cpus_per_gpu, cluster.prop_mem_gb_per_gpu
    pts = set(profiles.grid_configs())
    if not any(abs(c - pc) <= 1e-9 and abs(m - pm) <= 1e-9 for c, m in pts):
        pts.add((pc, pm))
    prop_t = profiles.tput(model, pc, pm)
    out = []
    for c, m in sorted(pts):
        if c > capacity_limit(cluster.cpus_per_server) or m > capacity_limit(
            cluster.mem_gb_per_server
        ):
            continue  # does not fit one server per GPU (the validator's capacity rule)
        t = profiles.tput(model, c, m)
        # A no-progress point is useless, except to a must-run job whose proportional share
        # makes no progress either: it still runs (as proportional, TUNE and OPT run it).
        if (t <= 0.0 and not (floor and prop_t <= 0.0)) or (floor and t < prop_t - TPUT_TOL):
            continue
        out.append((c, m, t))
    return out


def pareto(configs: list[Config]) -> list[Config]:
    """Drop every configuration dominated by another (<= CPUs, <= GB, >= throughput)."""
    keep = []
    for p in configs:
        dominated = any(
            q is not p and q[0] <= p[0] and q[1] <= p[1] and q[2] >= p[2] and q[:2] != p[:2]
            for q in configs
        )
        if not dominated:
            keep.append(p)
    return keep


@cache
def _cached(profiles: ProfileSet, cluster: Cluster, model: int, floor: bool) -> tuple[Config, ...]:
    return tuple(pareto(all_configs(profiles, cluster, model, floor=floor)))


def candidate_configs(
    profiles: ProfileSet, cluster: Cluster, model: int, *, floor: bool = True
) -> list[Config]:
    """Non-dominated candidate configurations (cached per profiles, cluster and model)."""
    return list(_cached(profiles, cluster, model, floor))
