"""ESG's instance families for the gap study (`schedlab gap esg`, the exact part of figure
`esg`, benchmarks `bench_split` and `bench_queues_gap`).

- "default": every registered heuristic (greedy, static, batch, infless, the SLO split under
  both of the paper's rules, ...) on random chains of 3-6 stages and DAGs of 5-8 functions
  (`generate`), against the MILP optimum (cost per request under the SLO). A baseline whose
  own configuration space holds no plan that fits reports no plan (`no_value`).
- "astar": A* (exact on chains) against CP-SAT and, where the raw space fits its cap, brute
  force (the `esg` figure's chains).
- "split": the SLO split (paper rules; `split_opt` in the benchmark) on random DAGs against the
  MILP (the `esg` figure's DAGs, `bench_split`'s random family); "layered": the same on layered
  DAGs (`generate_layered`, `bench_split`).
- "queues": ESG's per-queue A* + dispatch (`q_esg`) against the joint many-queue optimum
  (`q_milp`, checked against `q_cpsat`) on `random_queues` (`bench_queues_gap`).
"""

from __future__ import annotations

from typing import Any

from schedlab.experiments import ladder
from schedlab.experiments.esg.sizes import (
    FIGURE_CONFIGS,
    LAYERED_PER_SHAPE,
    LAYERED_SHAPES,
    SPLIT_MILP_LIMIT_S,
)
from schedlab.experiments.gap.spec import Rung, register_gap
from schedlab.solvers.esg.exact_enum import chain_fits
from schedlab.solvers.esg.generate import generate, generate_layered
from schedlab.solvers.esg.problem_queues import random_queues

CHAIN_STAGES = (3, 4, 5, 6)  # chain i has CHAIN_STAGES[i % 4] stages
DAG_STAGES = (5, 6, 7, 8)  # DAG i has DAG_STAGES[i % 4] functions
SPLIT_RULES = ({"rule": "min_latency"}, {"rule": "slack"})
#: "default": per size, (configurations per function, instances per rung, MILP limit s)
DEFAULT_SIZES = {"tiny": (10, 2, 60.0), "small": (20, 4, 60.0), "full": (60, 15, 120.0)}
#: "queues": (queues, stages, configurations, invokers) per rung; instances per rung by size
QUEUE_SIZES = [(3, 2, 8, 1), (4, 2, 10, 2), (4, 3, 10, 2), (6, 3, 20, 2), (8, 3, 20, 3)]
QUEUE_COUNTS = {"tiny": (3, 2), "small": (5, 3), "full": (5, 10)}  # (rungs, instances)


def chain_seed(seed: int, rung: Rung, i: int) -> int:
    """Chain number 4 i + offset of its stage count: 10^4 x seed + that number."""
    return 10_000 * seed + 4 * i + CHAIN_STAGES.index(int(rung.params["stages"]))


def dag_seed(seed: int, rung: Rung, i: int) -> int:
    """DAG number 4 i + offset of its function count: 2 x 10^4 x seed + that number."""
    return 20_000 * seed + 4 * i + DAG_STAGES.index(int(rung.params["stages"]))


def layered_seed(seed: int, rung: Rung, i: int) -> int:
    return 10**6 * seed + 1000 * int(rung.params["depth"]) + 100 * int(rung.params["width"]) + i


def queue_seed(seed: int, rung: Rung, i: int) -> int:
    p = rung.params
    return seed + 1000 * int(p["n_queues"]) + 100 * int(p["stages"]) + i


def extras(row: dict[str, Any]) -> dict[str, Any]:
    """A*'s search counters and the many-queue problem's hits and cost, where given."""
    keep = ("nodes_expanded", "raw_space", "hits", "cost")
    return {k: row["stats"].get(k) for k in keep}


def _per_stage(total: int, stages: tuple[int, ...]) -> dict[int, int]:
    """Instances per stage count when instance i has stages[i % len(stages)] stages."""
    return {s: len(range(k, total, len(stages))) for k, s in enumerate(stages)}


def chain_rungs(chains: int, configs: int, limit: float | None = None) -> list[Rung]:
    """`chains` chains (instance i: CHAIN_STAGES[i % 4] stages of `configs` configurations)."""
    out = []
    for stages, count in _per_stage(chains, CHAIN_STAGES).items():
        # brute force runs where the chain is within its work cap (`exact_enum.chain_fits`)
        exact = ("cpsat", "brute") if chain_fits(stages, configs) else ("cpsat",)
        params = {"stages": stages, "configs": configs, "shape": "chain"}
        out.append(Rung("chain", stages, f"{stages} stages", "chain", params, count, exact, limit))
    return out


def dag_rungs(dags: int, configs: int, limit: float | None = None) -> list[Rung]:
    """`dags` DAGs (instance i: DAG_STAGES[i % 4] functions of `configs` configurations)."""
    out = []
    for stages, count in _per_stage(dags, DAG_STAGES).items():
        params = {"stages": stages, "configs": configs, "shape": "dag"}
        out.append(
            Rung("dag", stages, f"{stages} functions", "dag", params, count, ("milp",), limit)
        )
    return out


def _figure_config(size: str) -> dict[str, Any]:
    """The `esg` figure's sizes (FIGURE_CONFIGS: chains, DAGs, configurations)."""
    return dict(ladder.pick(size, FIGURE_CONFIGS))


def app_seed(seed: int, rung: Rung, i: int) -> int:
    """`chain_seed` for chains, `dag_seed` for DAGs."""
    return (chain_seed if rung.params["shape"] == "chain" else dag_seed)(seed, rung, i)


@register_gap(
    "esg",
    "default",
    generator=generate,
    sense="min",
    seed_rule=app_seed,
    variants={"split": SPLIT_RULES},
    extras=extras,
    summary="heuristics vs the MILP optimum: cost per request under the SLO (random apps)",
)
def default_ladder(size: str) -> list[Rung]:
    """Chains of 3-6 stages and DAGs of 5-8 functions, `DEFAULT_SIZES[size]` each."""
    configs, count, limit = ladder.pick(size, DEFAULT_SIZES)
    return [
        Rung(
            shape,
            s,
            f"{s} {'stages' if shape == 'chain' else 'functions'}",
            shape,
            {"stages": s, "configs": configs, "shape": shape},
            count,
            ("milp",),
            limit,
        )
        for shape, stages in (("chain", CHAIN_STAGES), ("dag", DAG_STAGES))
        for s in stages
    ]


@register_gap(
    "esg",
    "astar",
    generator=generate,
    sense="min",
    seed_rule=chain_seed,
    methods=("astar",),
    extras=extras,
    default=False,
    summary="A* vs CP-SAT and brute force on random chains (the esg figure's chains)",
)
def astar_ladder(size: str) -> list[Rung]:
    cfg = _figure_config(size)
    return chain_rungs(cfg["chains"], cfg["configs"])


@register_gap(
    "esg",
    "split",
    generator=generate,
    sense="min",
    seed_rule=dag_seed,
    methods=("split[rule=min_latency]", "split[rule=slack]"),
    extras=extras,
    default=False,
    summary="the SLO split's rules vs the MILP on random DAGs (the esg figure's DAGs)",
)
def split_ladder(size: str) -> list[Rung]:
    cfg = _figure_config(size)
    return dag_rungs(cfg["dags"], max(cfg["configs"] // 3, 4))


@register_gap(
    "esg",
    "layered",
    generator=generate_layered,
    sense="min",
    seed_rule=layered_seed,
    methods=("split[rule=min_latency]", "split[rule=slack]", "split_opt"),
    default=False,
    summary="the SLO split's rules and the optimal split vs the MILP on layered DAGs",
)
def layered_ladder(size: str) -> list[Rung]:
    """`bench_split`'s layered shapes (two seeds each; one, and two shapes, at size tiny)."""
    tiny = ladder.check(size) == "tiny"
    shapes = LAYERED_SHAPES[:2] if tiny else LAYERED_SHAPES
    count = 1 if tiny else LAYERED_PER_SHAPE
    return [
        Rung(
            "layered",
            d * w + 2,
            f"layered {d}x{w}",
            "dag",
            {"depth": d, "width": w},
            count,
            ("milp",),
            SPLIT_MILP_LIMIT_S,
        )
        for d, w in shapes
    ]


@register_gap(
    "esg",
    "queues",
    generator=random_queues,
    sense="min",
    seed_rule=queue_seed,
    extras=extras,
    summary="per-queue A* + dispatch (q_esg) vs the joint many-queue optimum (q_milp, q_cpsat)",
)
def queues_ladder(size: str) -> list[Rung]:
    rungs, count = ladder.pick(size, QUEUE_COUNTS)
    return queue_rungs(QUEUE_SIZES[:rungs], count)


def queue_rungs(sizes: list[tuple[int, int, int, int]], count: int) -> list[Rung]:
    """One rung per (queues, stages, configurations, invokers), `count` snapshots each."""
    return [
        Rung(
            "queues",
            nq * st,
            f"{nq}q x {st}st x {cf}c x {inv}inv",
            "queues",
            {"n_queues": nq, "stages": st, "configs": cf, "invokers": inv},
            count,
            ("q_milp", "q_cpsat"),
            60.0,
        )
        for nq, st, cf, inv in sizes
    ]
