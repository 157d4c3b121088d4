"""Model profiles: per-GPU throughput of a DNN training job as a function of CPUs and memory.

A profile set has one grid (CPUs per GPU x GB per GPU) and, per model, a throughput table on
that grid normalized to 1 at the profiling point (3 CPUs, 62.5 GB per GPU for the shipped
Synergy profiles), plus the model's ideal CPUs/memory per GPU (the cheapest point of peak
throughput). Throughput between grid points is the value at the largest grid point that the
allocation covers in both dimensions (a step function: you get what you can afford); below the
smallest grid point a job makes no progress. The shipped profiles come from msr-fiddle/synergy
(MIT License), see `data/ATTRIBUTION.md`.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from schedlab.solvers.errors import InvalidInput, Problems
from schedlab.solvers.validate import MAX_MAGNITUDE, short

TPUT_TOL = 1e-9  # throughput comparisons (profile values have 2-3 decimals)
GRID_TOL = 1e-9  # resource-per-GPU comparisons against grid values


@dataclass(frozen=True)
class ModelProfile:
    """One model's profile; `tput[i][j]` is at cpu_values[i] CPUs and mem_values[j] GB per GPU."""

    name: str
    task: str
    tput: tuple[tuple[float, ...], ...]
    ideal_cpus_per_gpu: float
    ideal_mem_gb_per_gpu: float
    speedup_at_ideal: float
    iter_time_s_at_proportional: float
    batch: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "ideal_cpus_per_gpu": self.ideal_cpus_per_gpu,
            "ideal_mem_gb_per_gpu": self.ideal_mem_gb_per_gpu,
            "speedup_at_ideal": self.speedup_at_ideal,
            "iter_time_s_at_proportional": self.iter_time_s_at_proportional,
            "batch": self.batch,
            "tput": [list(r) for r in self.tput],
        }


def _num(x: Any) -> bool:
    """A finite number of magnitude at most MAX_MAGNITUDE (1e12): products of throughputs,
    GPU counts and server counts then stay far from float overflow."""
    return (
        isinstance(x, int | float)
        and not isinstance(x, bool)
        and abs(x) <= MAX_MAGNITUDE  # False for NaN and inf
    )


def _grid(raw: Any, key: str, problems: Problems) -> tuple[float, ...] | None:
    if not isinstance(raw, Sequence) or isinstance(raw, str) or len(raw) == 0:
        problems.add(f"profiles: field '{key}' must be a non-empty list of numbers")
        return None
    if not all(_num(v) for v in raw):
        problems.add(
            f"profiles: field '{key}' has non-numbers, NaN/inf or magnitudes above "
            f"{MAX_MAGNITUDE:g} ({short(list(raw))})"
        )
        return None
    vals = tuple(float(v) for v in raw)
    if vals[0] <= 0 or any(b <= a for a, b in zip(vals, vals[1:], strict=False)):
        problems.add(f"profiles: field '{key}' must be positive and strictly increasing ({vals})")
        return None
    return vals


def snap_up(grid: Sequence[float], value: float) -> float | None:
    """Smallest grid value >= value (within GRID_TOL), or None above the grid."""
    i = bisect.bisect_left(grid, value - GRID_TOL * max(1.0, abs(value)))
    return grid[i] if i < len(grid) else None


def floor_index(grid: Sequence[float], value: float) -> int:
    """Index of the largest grid value <= value (within GRID_TOL); -1 below the grid."""
    return bisect.bisect_right(grid, value + GRID_TOL * max(1.0, abs(value))) - 1


@dataclass(frozen=True)
class ProfileSet:
    """A grid and the profiles of the models on it; look models up by name or index."""

    cpu_values: tuple[float, ...]
    mem_values: tuple[float, ...]
    models: tuple[ModelProfile, ...]
    _index: Mapping[str, int] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_index", {m.name: i for i, m in enumerate(self.models)})

    # ---- construction -------------------------------------------------------------------
    @classmethod
    def from_dict(cls, data: Any) -> ProfileSet:
        """Build from the profiles.json layout, reporting every problem at once."""
        problems = Problems()
        if not isinstance(data, Mapping):
            raise InvalidInput("profiles: must be an object with the grid and 'models'")
        cpu = _grid(data.get("cpu_values_per_gpu"), "cpu_values_per_gpu", problems)
        mem = _grid(data.get("mem_values_gb_per_gpu"), "mem_values_gb_per_gpu", problems)
        raw_models = data.get("models")
        if not isinstance(raw_models, Mapping) or not raw_models:
            problems.add("profiles: field 'models' must be a non-empty object name -> profile")
            raw_models = {}
        models = []
        for name, raw in raw_models.items():
            m = _check_model(str(name), raw, cpu, mem, problems)
            if m is not None:
                models.append(m)
        problems.raise_if_any()
        assert cpu is not None and mem is not None
        return cls(cpu, mem, tuple(models))

    def to_dict(self) -> dict[str, Any]:
        return {
            "cpu_values_per_gpu": list(self.cpu_values),
            "mem_values_gb_per_gpu": list(self.mem_values),
            "models": {m.name: m.to_dict() for m in self.models},
        }

    # ---- look-ups -----------------------------------------------------------------------
    @property
    def names(self) -> list[str]:
        return [m.name for m in self.models]

    def index(self, name: str) -> int:
        """Position of model `name` (InvalidInput naming the known models if unknown)."""
        try:
            return self._index[name]
        except KeyError:
            raise InvalidInput(
                f"model: unknown model {name!r}; known: {', '.join(self.names)}"
            ) from None

    def __contains__(self, name: object) -> bool:
        return name in self._index

    def tput(self, model: int, cpus_per_gpu: float, mem_gb_per_gpu: float) -> float:
        """Normalized per-GPU throughput (step function of the grid; 0 below the grid)."""
        i = floor_index(self.cpu_values, cpus_per_gpu)
        j = floor_index(self.mem_values, mem_gb_per_gpu)
        if i < 0 or j < 0:
            return 0.0
        return self.models[model].tput[i][j]

    def ideal(self, model: int) -> tuple[float, float]:
        """The model's ideal (CPUs, GB) per GPU, rounded up to grid points."""
        m = self.models[model]
        c = snap_up(self.cpu_values, m.ideal_cpus_per_gpu)
        g = snap_up(self.mem_values, m.ideal_mem_gb_per_gpu)
        assert c is not None and g is not None  # checked on construction
        return c, g

    def grid_configs(self) -> list[tuple[float, float]]:
        """Every grid point (CPUs, GB) per GPU."""
        return [(c, m) for c in self.cpu_values for m in self.mem_values]


def _check_model(
    name: str,
    raw: Any,
    cpu: tuple[float, ...] | None,
    mem: tuple[float, ...] | None,
    problems: Problems,
) -> ModelProfile | None:
    label = f"profiles: model {name!r}"
    if not isinstance(raw, Mapping):
        problems.add(f"{label}: must be an object")
        return None
    nums = _model_numbers(label, raw, problems)
    task = raw.get("task", "")
    ok = nums is not None
    if not isinstance(task, str):
        problems.add(f"{label}: field 'task' must be a string (got {task!r})")
        ok = False
    rows = _tput_table(label, raw.get("tput"), cpu, mem, problems)
    if not ok or rows is None or nums is None or cpu is None or mem is None:
        return None
    if not _ideal_is_peak_and_monotone(label, rows, nums, cpu, mem, problems):
        return None
    return ModelProfile(
        name,
        task,
        rows,
        nums["ideal_cpus_per_gpu"],
        nums["ideal_mem_gb_per_gpu"],
        nums["speedup_at_ideal"],
        nums["iter_time_s_at_proportional"],
        int(nums["batch"]),
    )


def _model_numbers(
    label: str, raw: Mapping[str, Any], problems: Problems
) -> dict[str, float] | None:
    """The model's positive numeric fields (defaults where optional); None after a problem."""
    ok = True
    nums: dict[str, float] = {}
    for key, default in (
        ("ideal_cpus_per_gpu", None),
        ("ideal_mem_gb_per_gpu", None),
        ("speedup_at_ideal", 1.0),
        ("iter_time_s_at_proportional", 1.0),
        ("batch", 1),
    ):
        v = raw.get(key, default)
        if v is None:
            problems.add(f"{label}: field '{key}' is missing")
            ok = False
        elif not _num(v) or v <= 0:
            problems.add(
                f"{label}: field '{key}' must be a number in (0, {MAX_MAGNITUDE:g}] "
                f"(got {short(v)})"
            )
            ok = False
        else:
            nums[key] = float(v)
    return nums if ok else None


def _tput_table(
    label: str,
    table: Any,
    cpu: tuple[float, ...] | None,
    mem: tuple[float, ...] | None,
    problems: Problems,
) -> tuple[tuple[float, ...], ...] | None:
    """The throughput table as rows of floats, checked against the grid; None on a problem."""
    if not isinstance(table, Sequence) or isinstance(table, str):
        problems.add(f"{label}: field 'tput' must be a list of rows (one per CPU grid value)")
        return None
    if cpu is None or mem is None:
        return None
    if len(table) != len(cpu) or any(
        not isinstance(r, Sequence) or isinstance(r, str) or len(r) != len(mem) for r in table
    ):
        problems.add(
            f"{label}: field 'tput' must be {len(cpu)} rows of {len(mem)} numbers "
            "(rows = cpu_values_per_gpu, columns = mem_values_gb_per_gpu)"
        )
        return None
    if not all(_num(v) and v >= 0 for r in table for v in r):
        problems.add(
            f"{label}: field 'tput' must hold numbers in [0, {MAX_MAGNITUDE:g}] "
            "(normalized throughputs; 1 at the profiling point)"
        )
        return None
    return tuple(tuple(float(v) for v in r) for r in table)


def _ideal_is_peak_and_monotone(
    label: str,
    rows: tuple[tuple[float, ...], ...],
    nums: dict[str, float],
    cpu: tuple[float, ...],
    mem: tuple[float, ...],
    problems: Problems,
) -> bool:
    """The ideal lies on the grid at peak throughput, and throughput never drops with more
    CPU or memory."""
    c = snap_up(cpu, nums["ideal_cpus_per_gpu"])
    g = snap_up(mem, nums["ideal_mem_gb_per_gpu"])
    if c is None or g is None:
        problems.add(
            f"{label}: ideal ({nums['ideal_cpus_per_gpu']:g} CPUs, "
            f"{nums['ideal_mem_gb_per_gpu']:g} GB per GPU) lies above the profiled grid"
        )
        return False
    peak = max(v for r in rows for v in r)
    at_ideal = rows[cpu.index(c)][mem.index(g)]
    if at_ideal < peak - TPUT_TOL:
        problems.add(
            f"{label}: throughput at the ideal point is {at_ideal:g}, below the profile's peak "
            f"{peak:g}; the ideal must be a point of peak throughput"
        )
        return False
    # Monotone in each resource: more CPU or memory never slows a job down.
    for i in range(len(cpu)):
        for j in range(len(mem)):
            if (i and rows[i][j] < rows[i - 1][j] - TPUT_TOL) or (
                j and rows[i][j] < rows[i][j - 1] - TPUT_TOL
            ):
                problems.add(
                    f"{label}: field 'tput' must not decrease with more CPU or memory "
                    f"(row {i}, column {j})"
                )
                return False
    return True


@cache
def default_profiles() -> ProfileSet:
    """The 10 shipped Synergy profiles (package data `solvers/synergy/data/profiles.json`)."""
    text = resources.files("schedlab.solvers.synergy.data").joinpath("profiles.json").read_text()
    return ProfileSet.from_dict(json.loads(text))


# Named profile sets shipped in `data/` (see its ATTRIBUTION.md): the default (CPU:GPU 3, servers
# of 24 CPUs) and the authors' CPU:GPU-ratio sets for servers of 32, 40 and 48 CPUs (8 GPUs),
# each normalized to 1 at its own proportional share (ratio CPUs, 62.5 GB per GPU).
PROFILE_SETS: dict[str, tuple[str, float]] = {
    "default": ("profiles.json", 24.0),
    "cpu-ratio-4": ("profiles_cpu4.json", 32.0),
    "cpu-ratio-5": ("profiles_cpu5.json", 40.0),
    "cpu-ratio-6": ("profiles_cpu6.json", 48.0),
}


# CPUs per GPU of each shipped set (servers of 8 GPUs): the --cpu-ratio choices.
CPU_RATIOS: dict[str, str] = {
    "3": "default",
    "4": "cpu-ratio-4",
    "5": "cpu-ratio-5",
    "6": "cpu-ratio-6",
}


@cache
def named_profiles(name: str = "default") -> ProfileSet:
    """A shipped profile set by name (`PROFILE_SETS`); InvalidInput naming the known sets."""
    if name == "default":
        return default_profiles()
    if name not in PROFILE_SETS:
        raise InvalidInput(
            f"profiles: unknown profile set {name!r}; known: {', '.join(PROFILE_SETS)}"
        )
    fname = PROFILE_SETS[name][0]
    text = resources.files("schedlab.solvers.synergy.data").joinpath(fname).read_text()
    return ProfileSet.from_dict(json.loads(text))
