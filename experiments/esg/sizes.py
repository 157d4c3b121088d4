"""Sizes of the ESG exact comparisons, shared by the gap study's families (`gapspec`), the
`esg` figure (`fig_esg`) and the `bench_split` benchmark.

Plain constants, no schedlab import: the figure and the benchmark read them at import time, and
importing `gapspec` there would load (and register) solver modules earlier than before.
"""

from __future__ import annotations

from typing import Any

#: The `esg` figure's exact part per size (`fig_esg.CONFIGS`; the evaluation's sizes are
#: `eval_studies.main_study`): chains, DAGs, configurations per function.
FIGURE_CONFIGS: dict[str, dict[str, Any]] = {
    "tiny": {"chains": 4, "dags": 4, "configs": 15},
    "small": {"chains": 12, "dags": 12, "configs": 30},
    "full": {"chains": 60, "dags": 60, "configs": 100},
}
#: "layered" (and `bench_split`): (depth, width) of the layered DAGs, each with
#: `LAYERED_PER_SHAPE` seeds.
LAYERED_SHAPES = [(2, 3), (3, 3), (4, 2), (3, 4), (5, 2), (2, 4)]
LAYERED_PER_SHAPE = 2
#: The MILP's limit (s) on the split's DAGs, random and layered (`bench_split`).
SPLIT_MILP_LIMIT_S = 120.0
