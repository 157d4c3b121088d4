"""`schedlab.esg`: ESG applications to hand to `schedlab.solve`, generated or loaded.

An application (`App`) is a chain or DAG of functions, each with configurations (batch,
vCPUs, GPU share, latency); a method picks one per function, the cheapest per request whose
end-to-end latency fits the budget (the SLO unless `budget_ms` is given). Thin: it delegates
to `generate` and `problem`.
"""

from __future__ import annotations

from pathlib import Path

from schedlab.solvers.esg.generate import SHARE_GRIDS
from schedlab.solvers.esg.generate import generate as generate_app
from schedlab.solvers.esg.problem import App, AppKind, Config, Function
from schedlab.solvers.validate import check_seed

__all__ = ["SHARE_GRIDS", "App", "Config", "Function", "generate", "load", "objective"]

#: The cost per request is minimized.
SENSE = "min"


def generate(
    *,
    stages: int = 4,
    configs: int = 8,
    seed: int,
    shape: AppKind = "chain",
    budget_ms: float | None = None,
    slo_quantile: float = 0.3,
    shares: str = "auto",
    cpu_configs: int = 0,
) -> App:
    """A seeded random application of `stages` functions with `configs` configurations each
    (the CLI's `esg generate`), a chain or a DAG (`shape`); `budget_ms` None: the SLO."""
    check_seed(seed, allow_none=False)
    app = generate_app(
        stages,
        configs,
        seed,
        shape=shape,
        slo_quantile=slo_quantile,
        shares=shares,
        cpu_configs=cpu_configs,
    )
    return app.with_budget(budget_ms)


def load(path: str | Path, *, budget_ms: float | None = None) -> App:
    """The application file at `path` (the CLI's format); `budget_ms` None: its SLO."""
    return App.load(path).with_budget(budget_ms)


def objective(app: App) -> str:
    """The objective's name in results."""
    return "cost"
