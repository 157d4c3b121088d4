"""Synergy (Mohan et al., OSDI 2022): CPU/memory-aware allocation of one scheduling round.

Model. A cluster of identical servers (`Cluster`, default 16 x (8 GPUs, 24 CPUs, 500 GB)); the
runnable jobs of a round in policy order (`Job`: id, model name, GPU demand, optional
`remaining_s`); model profiles (`ProfileSet`, the 10 shipped Synergy models by default) giving
per-GPU throughput as a step function of (CPUs, GB) per GPU, normalized to 1 at 3 CPUs and
62.5 GB per GPU. A running job gets exactly its GPUs, on one or more servers, with the same
CPUs and memory per GPU on each (its configuration (c, m)); it runs at `gpus * tput(c, m)`.
The value of an allocation is the sum over running jobs (total throughput).

Validated path (users, CLI, experiments)::

    from schedlab.solvers.synergy import Snapshot, solve, check_allocation
    snap = Snapshot.load("snap.json")              # InvalidInput names file, job and field
    res = solve(snap, "milp", options={"solver": "cbc"})  # SolveResult[Allocation]
    res.value, res.status, res.bound, res.stats    # total throughput, ...
    res.solution.jobs, res.solution.not_run        # the Allocation; .to_dict() is its JSON
    check_allocation(snap, res.solution, require_proportional_set=True)  # [] when valid

Fast path (simulators; no validation, model indices and GPU demands in policy order)::

    from schedlab.solvers.synergy import RoundAllocator, Cluster
    ra = RoundAllocator(Cluster(servers=16))       # once per simulation
    k = ra.model_index("res18")                    # model name -> index
    rr = ra.allocate("tune", [k, ...], [1, ...])  # any of fast_methods(); a RoundResult
    rr.run[i], rr.tput_per_gpu[i]                  # job i runs? its per-GPU throughput (arrays)
    rr.cpus_per_gpu[i], rr.mem_gb_per_gpu[i], rr.placement(i)  # [(server, gpus), ...]
    rr.total_tput, rr.used_gpus, rr.used_cpus, rr.used_mem_gb, rr.stats

`tput_per_gpu` is the job's progress rate in seconds of work (measured at the normalization
point, i.e. the default proportional share) per second of wall time. Heuristics take well under
2 ms per round of 128 jobs on 16 servers; "opt" solves a small MILP and an LP each round (tens of
ms; memoized by the round's job mix).

Methods (`solve(snap, name)`, all in `schedlab.solvers.solve.METHODS`, scope "synergy"):
proportional, greedy, tune (`heuristics.py`) and opt (`heuristic_opt.py`) are allocators
(`allocators.py`: one protocol, registered with `register_method` and the tag "fast", serves
`solve` and `RoundAllocator`; placement shared in `placement.py`); opt
(Synergy-OPT: phase-1 MILP over configurations, phase-2 LP packing, rounding); milp, cpsat
(exact: configurations and placement together) and enum (exhaustive oracle, small snapshots).
The exact methods run exactly the jobs GPU-proportional runs this round
(`Snapshot.proportional_set()`), each at no less than its proportional per-GPU throughput;
TUNE and rounded OPT satisfy the same constraints, so their gap to the optimum is meaningful.
"""

from schedlab.solvers.solve import solve
from schedlab.solvers.synergy.allocation import (
    Allocation,
    JobAllocation,
    Part,
    check_allocation,
    total_tput,
    validate_allocation,
)
from schedlab.solvers.synergy.allocators import FAST_TAG, Allocator, RoundAllocator, fast_methods
from schedlab.solvers.synergy.generate import generate_snapshot
from schedlab.solvers.synergy.placement import PlacementState, Placer, RoundResult
from schedlab.solvers.synergy.problem import Cluster, Job, Snapshot
from schedlab.solvers.synergy.profiles import ModelProfile, ProfileSet, default_profiles

__all__ = [
    "Allocation",
    "Allocator",
    "Placer",
    "PlacementState",
    "fast_methods",
    "FAST_TAG",
    "Cluster",
    "Job",
    "JobAllocation",
    "ModelProfile",
    "Part",
    "ProfileSet",
    "RoundAllocator",
    "RoundResult",
    "Snapshot",
    "check_allocation",
    "default_profiles",
    "generate_snapshot",
    "solve",
    "total_tput",
    "validate_allocation",
]
