"""Profile families: latency_ms(b, c, g) = setup + b * (cpu / c**a + gpu / g**e), and seeded apps.

`data/profiles.json` holds the named families (constants illustrative; the MIG share grid is
cited there) and the configuration grid. `generate(stages, configs, seed)` draws a random app
(a chain, or a layered DAG with shape="dag") for tests, figures and `schedlab esg generate`;
`shares` picks the GPU-share grid (MIG profiles, MPS 5 % steps, sevenths), `cpu_configs` adds
CPU-only configurations (GPU share 0) and `layers` fixes a DAG's layer widths.
`measured_configs(model)` / `measured_app(models, slo_ms=None)`: measured A100 MIG profiles
(`data/parvagpu_a100_*.csv`, MIT, see data/ATTRIBUTION.md) as configurations and chains.

CPU-only latency (illustrative, not measured): the model part runs on the vCPUs instead of the
GPU, CPU_MODEL_SLOWDOWN times slower on one vCPU than on a whole GPU and scaling as
c**CPU_MODEL_EXP with c vCPUs: latency_ms(b, c, 0) = setup + b * (cpu / c**a + gpu *
CPU_MODEL_SLOWDOWN / c**CPU_MODEL_EXP). With the families' constants a batch-1 item takes
10-200 ms on one vCPU and 1.4-27 ms on 16, against 0.5-10 ms of model time on a whole GPU: the
order of magnitude of a ResNet-class model on CPU cores against an A100, no more.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from functools import cache
from importlib import resources
from typing import Any

import numpy as np

from schedlab.solvers.errors import InvalidInput, Problems
from schedlab.solvers.esg.limits import (
    MAX_CPU_CONFIGS,
    MAX_FUNCTIONS,
    MAX_GENERATED_CONFIGS,
    MEASURED_MODELS,
)
from schedlab.solvers.esg.plan import longest_path
from schedlab.solvers.esg.problem import App, AppKind, Config, Function, Prices


@cache
def profile_data() -> dict[str, Any]:
    text = resources.files("schedlab.solvers.esg").joinpath("data/profiles.json").read_text()
    data: dict[str, Any] = json.loads(text)
    return data


#: CPU-only configurations (GPU share 0): the model part on one vCPU is this many times slower
#: than on a whole GPU, and speeds up as vCPUs**CPU_MODEL_EXP (illustrative constants).
CPU_MODEL_SLOWDOWN, CPU_MODEL_EXP = 20.0, 0.8
#: The CPU-only grid: batch sizes x vCPUs (INFless scans CPU threads up to 16; a Lambda-like
#: function gets up to 6 vCPUs from its memory size; 16 is a large serverless instance).
CPU_GRID_BATCH, CPU_GRID_VCPUS = (1, 2, 4, 8, 16, 32), (1, 2, 4, 8, 16)
#: GPU-share grids `generate(shares=...)` offers ("auto": sevenths or MPS steps by size).
SHARE_GRIDS = ("auto", "mig", "mps", "sevenths")


def latency_ms(family: dict[str, float], batch: int, vcpus: float, share: float) -> float:
    """Batch latency of a family at (batch, vCPUs, GPU share); share 0 is CPU-only."""
    per_item = family["cpu_ms"] / vcpus ** family["cpu_exp"]
    if share == 0:
        per_item += family["gpu_ms"] * CPU_MODEL_SLOWDOWN / vcpus**CPU_MODEL_EXP
    else:
        per_item += family["gpu_ms"] / share ** family["gpu_exp"]
    return family["setup_ms"] + batch * per_item


def family_configs(name: str, shares: str = "mig") -> list[Config]:
    """Every grid configuration of the named family (no noise)."""
    data = profile_data()
    if name not in data["families"]:
        raise InvalidInput(f"family: unknown {name!r}; choose one of {', '.join(data['families'])}")
    fam, grid = data["families"][name], data["grid"]
    return [
        Config(b, c, g, round(latency_ms(fam, b, c, g), 3))
        for b in grid["batch"]
        for c in grid["vcpus"]
        for g in data["share_grids"][shares]["shares"]
    ]


def largest_grid() -> int:
    """Configurations of the largest grid `_grid` offers (MAX_GENERATED_CONFIGS)."""
    grids = profile_data()["share_grids"]
    return 8 * 6 * len(grids["mps"]["shares"])


def _grid(n: int, share_grid: str = "auto") -> list[tuple[int, int, float]]:
    """A (batch, vcpus, share) grid with at least n points on the named share grid ("auto":
    sevenths, or MPS shares when sevenths are few)."""
    grids = profile_data()["share_grids"]
    if share_grid == "auto":
        share_grid = "sevenths" if n <= 6 * 4 * 7 else "mps"
    shares = grids[share_grid]["shares"]
    batches = [1, 2, 4, 8, 16, 32] if n <= 6 * 4 * len(shares) else [1, 2, 4, 8, 16, 32, 64, 128]
    vcpus = [1, 2, 4, 8] if n <= len(batches) * 4 * len(shares) else [1, 2, 3, 4, 6, 8]
    grid = [(b, c, g) for b in batches for c in vcpus for g in shares]
    if n > len(grid):
        raise InvalidInput(
            f"configs: at most {len(grid)} per function on the {share_grid!r} share grid "
            f"(got {n}); lower --configs or take a larger grid (--shares mps)"
        )
    return grid


def random_family(rng: np.random.Generator) -> dict[str, float]:
    return {
        "setup_ms": float(rng.uniform(1.0, 12.0)),
        "cpu_ms": float(rng.uniform(0.5, 4.0)),
        "cpu_exp": float(rng.uniform(0.5, 0.95)),
        "gpu_ms": float(rng.uniform(0.5, 10.0)),
        "gpu_exp": float(rng.uniform(0.3, 0.9)),
    }


def random_function(
    fid: str,
    configs: int,
    rng: np.random.Generator,
    *,
    shares: str = "auto",
    cpu_configs: int = 0,
) -> Function:
    """A function with `configs` GPU configurations drawn from the grid and `cpu_configs`
    CPU-only ones from the CPU grid (seeded, 5 % noise; no extra draws when cpu_configs=0)."""
    fam, grid = random_family(rng), _grid(configs, shares)
    picks = rng.choice(len(grid), size=configs, replace=False)
    out = []
    for k in sorted(int(x) for x in picks):
        b, c, g = grid[k]
        lat = latency_ms(fam, b, c, g) * float(rng.lognormal(0.0, 0.05))
        out.append(Config(b, c, g, round(lat, 3)))
    if cpu_configs:
        cpu = [(b, c) for b in CPU_GRID_BATCH for c in CPU_GRID_VCPUS]
        for k in sorted(int(x) for x in rng.choice(len(cpu), size=cpu_configs, replace=False)):
            b, c = cpu[k]
            lat = latency_ms(fam, b, c, 0.0) * float(rng.lognormal(0.0, 0.05))
            out.append(Config(b, c, 0.0, round(lat, 3)))
    return Function(fid, tuple(out))


def _dag_edges(
    ids: list[str], rng: np.random.Generator, widths: Sequence[int] | None = None
) -> list[tuple[str, str]]:
    """Layered DAG: one source, one sink, inner layers of 1-3 functions (or of the given
    `widths`), every node linked both ways."""
    inner, layers = ids[1:-1], [[ids[0]]]
    i, given = 0, list(widths or [])
    while i < len(inner):
        w = given.pop(0) if widths is not None else int(rng.integers(1, 4))
        layers.append(inner[i : i + w])
        i += w
    layers.append([ids[-1]])
    edges: set[tuple[str, str]] = set()
    for a, b in zip(layers, layers[1:], strict=False):
        for v in b:  # every node has a predecessor in the previous layer
            edges.add((a[int(rng.integers(len(a)))], v))
        for u in a:  # every node has a successor in the next layer
            if not any(e[0] == u for e in edges):
                edges.add((u, b[int(rng.integers(len(b)))]))
        if rng.random() < 0.5:
            edges.add((a[int(rng.integers(len(a)))], b[int(rng.integers(len(b)))]))
    order = {fid: n for n, fid in enumerate(ids)}
    return sorted(edges, key=lambda e: (order[e[0]], order[e[1]]))


def generate(
    stages: int,
    configs: int,
    seed: int,
    *,
    shape: AppKind = "chain",
    slo_quantile: float = 0.3,
    name: str | None = None,
    shares: str = "auto",
    cpu_configs: int = 0,
    layers: Sequence[int] | None = None,
) -> App:
    """A random app; the SLO is the longest path of each stage's `slo_quantile` latency over
    its GPU configurations (CPU-only ones do not move the SLO).

    Stages 1..MAX_FUNCTIONS, configurations 1..MAX_GENERATED_CONFIGS (the CLI's ranges);
    `shares` one of SHARE_GRIDS; `cpu_configs` 0..MAX_CPU_CONFIGS CPU-only configurations per
    function; `layers` (DAG only): the inner layers' widths, summing to stages - 2 (source and
    sink are layers of one).
    """
    problems = []
    if not 1 <= stages <= MAX_FUNCTIONS:
        problems.append(f"stages: must lie in 1..{MAX_FUNCTIONS} (got {stages})")
    if not 1 <= configs <= MAX_GENERATED_CONFIGS:
        problems.append(f"configs: must lie in 1..{MAX_GENERATED_CONFIGS} (got {configs})")
    if shares not in SHARE_GRIDS:
        problems.append(f"shares: unknown {shares!r}; choose one of {', '.join(SHARE_GRIDS)}")
    if not 0 <= cpu_configs <= MAX_CPU_CONFIGS:
        problems.append(f"cpu_configs: must lie in 0..{MAX_CPU_CONFIGS} (got {cpu_configs})")
    if layers is not None and (
        shape != "dag" or any(w < 1 for w in layers) or sum(layers) != stages - 2
    ):
        problems.append(
            f"layers: inner layer widths >= 1 summing to stages - 2 = {stages - 2}, for a DAG "
            f"(got {list(layers)} with shape {shape!r})"
        )
    if problems:
        raise InvalidInput(problems)
    if shares != "auto":
        _grid(configs, shares)  # a grid too small for `configs` is named here
    if shape == "dag" and stages < 3:
        raise InvalidInput(f"stages: a DAG needs at least 3 (got {stages})")
    rng = np.random.default_rng(seed)
    ids = [f"f{i}" for i in range(stages)]
    funcs = tuple(
        random_function(fid, configs, rng, shares=shares, cpu_configs=cpu_configs) for fid in ids
    )
    if shape == "chain":
        edges = [(ids[i], ids[i + 1]) for i in range(stages - 1)]
    else:
        edges = _dag_edges(ids, rng, layers)
    app = App(name or f"{shape}-{stages}x{configs}-s{seed}", 1.0, funcs, tuple(edges), Prices())
    return App(app.name, quantile_slo(app, slo_quantile), funcs, tuple(edges), Prices())


def generate_layered(depth: int, width: int, seed: int, *, configs: int = 10) -> App:
    """A source, `depth` layers of `width` functions, a sink; every function linked to one or
    two functions of the next layer (and reached from one of the previous), `configs`
    configurations per function (`random_function`), the SLO the longest path of each
    function's 0.3 latency quantile (one decimal). Benchmark `bench_split`'s layered family."""
    rng = np.random.default_rng(seed)
    n = depth * width + 2
    ids = [f"f{i}" for i in range(n)]
    funcs = tuple(random_function(fid, configs, rng) for fid in ids)
    layers = [[0]] + [list(range(1 + d * width, 1 + (d + 1) * width)) for d in range(depth)]
    layers.append([n - 1])
    edges: set[tuple[int, int]] = set()
    for a, b in zip(layers, layers[1:], strict=False):
        for u in a:
            for v in rng.choice(b, size=min(len(b), int(rng.integers(1, 3))), replace=False):
                edges.add((u, int(v)))
        for v in b:
            if not any(e[1] == v for e in edges):
                edges.add((a[int(rng.integers(len(a)))], v))
    named = tuple((ids[u], ids[v]) for u, v in sorted(edges))
    app = App(f"layered-{depth}x{width}-s{seed}", 1.0, funcs, named, Prices())
    q = [float(np.quantile([c.latency_ms for c in f.configs], 0.3)) for f in funcs]
    return App(app.name, round(longest_path(app, q), 1), funcs, named, Prices())


def quantile_slo(app: App, slo_quantile: float = 0.3) -> float:
    """The generator's SLO rule: the longest path of each function's `slo_quantile` latency
    over its GPU configurations (CPU-only ones do not count), rounded to 0.1 ms (at least 0.1)."""
    q = [
        float(np.quantile([c.latency_ms for c in f.configs if not c.cpu_only], slo_quantile))
        for f in app.functions
    ]
    return max(round(longest_path(app, q), 1), 0.1)


#: Header of a ParvaGPU profiling file; MIG instance sizes (compute slices of 7) it may name.
PARVA_HEADER = ("Mig instance", "Batch size", "Workload Number", "Throughput", "Latency")
MIG_SLICES = (1, 2, 3, 4, 7)
#: The file's latency is in seconds rounded to 1 ms; batch / throughput must agree within it.
PARVA_ROUNDING_MS = 0.5 + 1e-6


def _parva_row(p: Problems, where: str, cells: list[str]) -> tuple[int, int, int, float, float]:
    """One row's (slices, batch, processes, throughput, latency s); bad cells are reported."""
    if len(cells) != len(PARVA_HEADER):
        p.add(
            f"{where}: {len(cells)} fields, expected {len(PARVA_HEADER)}: {','.join(PARVA_HEADER)}"
        )
        return 0, 0, 0, 0.0, 0.0
    ints, nums = [], []
    for name, cell in zip(PARVA_HEADER[:3], cells[:3], strict=True):
        ok = cell.strip().isdigit() and int(cell) >= 1
        if not ok:
            p.add(f"{where}.{name}: must be a positive integer (got {cell!r})")
        ints.append(int(cell) if ok else 0)
    for name, cell in zip(PARVA_HEADER[3:], cells[3:], strict=True):
        try:
            v = float(cell)
        except ValueError:
            v = math.nan
        if not (math.isfinite(v) and v >= 0):
            p.add(f"{where}.{name}: must be a finite number >= 0 (got {cell!r})")
            v = math.nan
        nums.append(v)
    if ints[0] and ints[0] not in MIG_SLICES:
        p.add(f"{where}.Mig instance: must be one of {MIG_SLICES} (got {ints[0]})")
    if not all(math.isfinite(v) for v in nums):
        return ints[0], ints[1], ints[2], 0.0, 0.0
    if (nums[0] == 0) != (nums[1] == 0):
        p.add(f"{where}: Throughput and Latency must both be 0 (not measured) or both > 0")
    return ints[0], ints[1], ints[2], nums[0], nums[1]


def parva_configs(text: str, source: str, *, vcpus: float = 0.0) -> list[Config]:
    """ESG configurations from a ParvaGPU profiling CSV (one process per MIG instance).

    Share = slices / 7; latency_ms = 1000 x batch / throughput (the unrounded time per batch;
    checked against the Latency column's 1 ms rounding); rows with `0,0` (not measured) and
    with more than one process are skipped. `vcpus` is not measured: 0 makes the cost
    gpu_share x gpu_s x latency per batch. Every bad row is reported (InvalidInput).
    """
    p, seen, out = Problems(), set(), []
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines or tuple(c.strip() for c in lines[0].split(",")) != PARVA_HEADER:
        raise InvalidInput(f"header: must be {','.join(PARVA_HEADER)}", source=source)
    for n, line in enumerate(lines[1:], start=2):
        where = f"line {n}"
        g, b, w, thr, lat_s = _parva_row(p, where, line.split(","))
        if (g, b, w) in seen and g:
            p.add(f"{where}: a second row for Mig instance {g}, Batch size {b}, process {w}")
        seen.add((g, b, w))
        if w != 1 or thr == 0 or g not in MIG_SLICES or not b:
            continue
        ms = 1000.0 * b / thr
        if abs(ms - 1000.0 * lat_s) > PARVA_ROUNDING_MS:
            p.add(f"{where}: Batch size / Throughput = {ms:.3f} ms but Latency = {lat_s} s")
        out.append(Config(b, vcpus, g / 7, ms))
    if not out and not p:
        p.add("no measured row with Workload Number 1")
    p.raise_if_any(source)
    return out


def measured_configs(model: str, *, vcpus: float = 0.0) -> list[Config]:
    """The shipped A100 MIG measurements of `model` as ESG configurations (`parva_configs`)."""
    if model not in MEASURED_MODELS:
        raise InvalidInput(f"model: unknown {model!r}; choose one of {', '.join(MEASURED_MODELS)}")
    name = f"data/parvagpu_a100_{model}.csv"
    text = resources.files("schedlab.solvers.esg").joinpath(name).read_text()
    return parva_configs(text, name, vcpus=vcpus)


def measured_app(
    models: list[str],
    slo_ms: float | None = None,
    *,
    name: str | None = None,
    slo_quantile: float = 0.3,
) -> App:
    """A chain of functions, one per model (in order), on the measured MIG profiles.

    `slo_ms` None: `generate`'s rule (`quantile_slo`): the sum over the chain of each model's
    `slo_quantile` latency over its measured configurations, rounded to 0.1 ms.
    """
    if not models:
        raise InvalidInput("models: name at least one of " + ", ".join(MEASURED_MODELS))
    funcs = tuple(Function(f"f{i}_{m}", tuple(measured_configs(m))) for i, m in enumerate(models))
    edges = tuple((funcs[i].id, funcs[i + 1].id) for i in range(len(funcs) - 1))
    slo = 1.0 if slo_ms is None else slo_ms
    app = App(name or "measured-" + "-".join(models), slo, funcs, edges, Prices())
    if slo_ms is None:
        return App(app.name, quantile_slo(app, slo_quantile), funcs, edges, Prices())
    return app
