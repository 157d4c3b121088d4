"""`schedlab esg ...`: generate an application, plan it with any method (`solve`, alias `plan`:
the shared solve verb of `experiments.cli_solve`), simulate policies.

Module level imports only click and the registries (keeps `schedlab --help` light).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from schedlab.experiments.cli_registry import LazyChoice, RegistryChoice, constant
from schedlab.experiments.cli_simulate import (
    Outcome,
    SimulateVerb,
    add_simulate,
    load_flag,
    policy_flag,
    seed_flag,
    trace_flag,
)
from schedlab.experiments.cli_solve import SolveVerb, add_solve
from schedlab.experiments.cliflags import (
    SEED,
    WORK_CAP,
    FiniteFloat,
    bounded_int,
    positive_float,
)
from schedlab.experiments.output import shown
from schedlab.experiments.registry import WORKLOADS, register_command
from schedlab.solvers.esg.limits import (
    LOAD_DEFINITION,
    MAX_COLD_START_MS,
    MAX_CPU_CONFIGS,
    MAX_GENERATED_CONFIGS,
    MAX_GENERATED_STAGES,
    MAX_INVOKERS,
    MAX_LOAD,
    MAX_REQUESTS,
    MEASURED_MODELS,
)

APP_FORMAT = """\b
Application file (JSON; a chain in list order when "edges" is omitted):
  {"name": "app", "slo_ms": 400, "prices": {"vcpu_s": 1.0e-5, "gpu_s": 1.0e-4},
   "functions": [{"id": "detect", "configs": [{"batch": 4, "vcpus": 2,
                  "gpu_share": 0.25, "latency_ms": 38.0}, ...]}, ...],
   "edges": [["detect", "classify"], ...]}
Optional: per config "wait_ms" (batch-fill wait), per function "transfer_ms", "cold_start_ms",
"output_mb" (data passed on per request, simulator only; default 1 MB)."""


@register_command("esg")
@click.group()
def esg() -> None:
    """ESG (HPDC 2024): batch size, vCPUs and GPU share of serverless inference pipelines.

    \b
    Example:
      schedlab esg generate --stages 4 --configs 50 --seed 1 > app.json
      schedlab esg solve app.json --method astar --json
      schedlab esg simulate --apps app.json --policy esg --load 0.5 --json
    """


_dispatch_rules = constant("schedlab.solvers.esg.dispatch", "DISPATCH_RULES")
_splits = constant("schedlab.experiments.esg.policies", "SPLITS")
_prunings = constant("schedlab.experiments.esg.policies", "PRUNINGS")
_late_rules = constant("schedlab.experiments.esg.policies", "LATE_RULES")
_share_grids = constant("schedlab.solvers.esg.generate", "SHARE_GRIDS")
_app_kinds = constant("schedlab.solvers.esg.problem", "APP_KINDS")


@esg.command("generate", epilog=APP_FORMAT)
@click.option("--stages", type=bounded_int(1, MAX_GENERATED_STAGES), default=4, show_default=True)
@click.option(
    "--configs",
    type=bounded_int(1, MAX_GENERATED_CONFIGS),
    default=50,
    show_default=True,
    help="Configurations per function (the largest grid of the shipped profiles).",
)
@click.option("--seed", type=SEED, default=0, show_default=True, help="0..2^63-1.")
@click.option("--shape", type=LazyChoice(_app_kinds), default="chain", show_default=True)
@click.option(
    "--shares",
    type=LazyChoice(_share_grids),
    default="auto",
    show_default=True,
    help="GPU-share grid: MIG profiles (1/7, 2/7, 3/7, 4/7, 1), MPS 5 % steps, sevenths, or "
    "auto (sevenths, MPS when the grid is too small).",
)
@click.option(
    "--cpu-configs",
    type=bounded_int(0, MAX_CPU_CONFIGS),
    default=0,
    show_default=True,
    help="CPU-only configurations (gpu_share 0) per function, besides --configs "
    "(illustrative latencies, docs/esg.md).",
)
@click.option(
    "--measured",
    default=None,
    metavar="MODEL[,MODEL...]",
    help="A chain on the measured A100 MIG profiles instead, one function per model in order "
    f"(models: {', '.join(MEASURED_MODELS)}); takes none of --stages, --configs, --seed, "
    "--shape, --shares, --cpu-configs.",
)
@click.option(
    "--slo-ms",
    type=positive_float(1e12),
    default=None,
    help="SLO of a --measured chain (default: the random apps' rule, the sum over the chain of "
    "each model's 30% latency quantile over its configurations, rounded to 0.1 ms).",
)
@click.option("-o", "--out", type=click.Path(path_type=Path), default=None, help="File (stdout).")
@click.pass_context
def generate_cmd(
    ctx: click.Context,
    stages: int,
    configs: int,
    seed: int,
    shape: str,
    shares: str,
    cpu_configs: int,
    measured: str | None,
    slo_ms: float | None,
    out: Path | None,
) -> None:
    """Write a random application (seeded profile families; SLO at the 30% latency quantile),
    or with --measured a chain on measured A100 MIG profiles (ParvaGPU's data, docs/esg.md).

    \b
    Example:
      schedlab esg generate --stages 5 --configs 100 --seed 3 -o app.json
      schedlab esg generate --stages 6 --configs 20 --shape dag > dag.json
      schedlab esg generate --stages 4 --configs 60 --shares mig --cpu-configs 12 > app.json
      schedlab esg generate --measured mobilenetv2,resnet50 --slo-ms 40 -o mig.json
    """
    from schedlab.solvers.errors import InvalidInput
    from schedlab.solvers.esg.generate import generate, measured_app

    if measured is None:
        if slo_ms is not None:
            raise InvalidInput("--slo-ms: only with --measured (random apps take the 30% rule)")
        app = generate(
            stages,
            configs,
            seed,
            shape=shape,  # type: ignore[arg-type]
            shares=shares,
            cpu_configs=cpu_configs,
        )
    else:
        given = [
            "--" + n.replace("_", "-")
            for n in ("stages", "configs", "seed", "shape", "shares", "cpu_configs")
            if ctx.get_parameter_source(n) is not click.core.ParameterSource.DEFAULT
        ]
        if given:
            raise InvalidInput(
                f"{', '.join(given)}: not with --measured (its chain is one function per "
                "measured model); leave them out"
            )
        models = [m.strip() for m in measured.split(",")]
        unknown = [m for m in models if m not in MEASURED_MODELS]
        if unknown or not measured.strip():
            raise InvalidInput(
                f"--measured: unknown model(s) {', '.join(map(repr, unknown or [measured]))}; "
                f"give a comma list of {', '.join(MEASURED_MODELS)}"
            )
        app = measured_app(models, slo_ms)
    if out is None:
        click.echo(app.to_json())
    else:
        app.save(out)
        click.echo(str(out), err=True)


def _app_type() -> Any:
    from schedlab.solvers.esg.problem import App

    return App


def _describe(app: Any) -> dict[str, Any]:
    return {"name": app.name, "budget_ms": app.budget, "slo_ms": app.slo_ms,
            "functions": len(app.functions), "shape": app.kind}  # fmt: skip


def _render(app: Any, res: Any) -> None:
    plan = res.solution
    click.echo(f"{app.name}: {res.method} {res.status.value}  budget {app.budget:g} ms")
    if plan is not None:
        click.echo(f"cost per request {plan.cost:.6g}  latency {plan.latency_ms:.3f} ms")
        for f in app.functions:
            k = plan.configs[f.id]
            c = f.configs[k]
            click.echo(
                f"  {f.id}: config {k} (batch {c.batch}, vcpus {c.vcpus:g}, "
                f"gpu_share {c.gpu_share:g}, {c.latency_ms:g} ms)"
            )
    nodes = shown(res.stats.get("nodes_expanded"))
    click.echo(f"runtime {res.runtime_s:.4f} s  nodes expanded {nodes}")


SOLVE = SolveVerb(
    subject="esg",
    file_type=_app_type,
    kinds=_app_kinds,  # one application: chain or DAG (the q_* methods take a queues file)
    build=lambda app, flags: app.with_budget(flags["budget_ms"]),
    describe=_describe,
    render=_render,
    default_method="astar",
    deprecated=lambda res: {"cost": res.value},  # = value; kept one release (docs/cli.md)
    epilog=APP_FORMAT,
    params=[
        click.Option(
            ["--budget-ms"],
            type=positive_float(1e12),
            default=None,
            help="Latency budget (default: the SLO).",
        )
    ],
    help="""Cheapest configuration per function of APP ('-': standard input) whose end-to-end
    latency fits the budget. `plan` is the same.

    No feasible plan: status "infeasible", exit 0.

    \b
    Example:
      schedlab esg solve app.json --method astar --json
      schedlab esg solve app.json --method cpsat --budget-ms 150
      schedlab esg plan app.json --method brute --backend cpu
    """,
)
add_solve(esg, SOLVE, "plan")


SIMULATE_FLAGS = (
    click.option(
        "--apps",
        "apps_file",
        type=click.Path(path_type=Path),
        required=True,
        help="An application file, or a JSON list of them.",
    ),
    policy_flag("esg", default="esg"),
    load_flag(
        FiniteFloat(0.0, MAX_LOAD, lo_open=True),
        0.5,
        f"Offered load. {LOAD_DEFINITION} A load so small that the requests would span more "
        "than 1e12 ms (32 years) of simulated time is refused.",
    ),
    click.option(
        "--arrivals",
        type=RegistryChoice(WORKLOADS, scope="esg", tag="arrivals"),
        default="poisson",
        show_default=True,
        help="Arrival process (experiments/esg/workloads.py); azure: the Azure LLM code trace's "
        "arrival pattern (the shipped subsample, or --trace), rescaled to the load.",
    ),
    trace_flag(
        "A whole Azure LLM trace CSV (TIMESTAMP,...) for --arrivals azure, e.g. "
        "../shared/data/azure_llm/AzureLLMInferenceTrace_code.csv.",
        dir_okay=False,
    ),
    click.option("--requests", type=bounded_int(1, MAX_REQUESTS), default=2000, show_default=True),
    click.option("--invokers", type=bounded_int(1, MAX_INVOKERS), default=4, show_default=True),
    click.option(
        "--cold-start-ms",
        type=FiniteFloat(0.0, MAX_COLD_START_MS),
        default=0.0,
        show_default=True,
        help="Cold start of a function whose file gives none.",
    ),
    click.option(
        "--dispatch",
        type=LazyChoice(_dispatch_rules),
        default="esg",
        show_default=True,
        help="Dispatch rule (solvers/esg/dispatch.py DISPATCH_RULES): esg = warm container, then "
        "the upstream invoker (locality), then best fit; no-locality, no-warm, random: ablations.",
    ),
    click.option(
        "--split",
        type=LazyChoice(_splits),
        default=None,
        help="How the esg policy splits a DAG's SLO over its dominator segments: opt (optimal "
        "split, default), min_latency or slack (the paper's rules), critical_path (no split: "
        "the ablation). Other policies plan the critical path.",
    ),
    click.option(
        "--no-gpu-sharing",
        is_flag=True,
        help="Ablation of the esg policy: whole GPUs only (GPU configurations of share 1; CPU-only "
        "ones stay).",
    ),
    click.option("--no-batching", is_flag=True, help="Ablation of the esg policy: batch 1 only."),
    click.option(
        "--no-replan",
        is_flag=True,
        help="Ablation of the esg policy: plan every function of a request once at its arrival "
        "(each stage at its planned start), never again per stage.",
    ),
    click.option(
        "--pruning",
        type=LazyChoice(_prunings),
        default="schedlab",
        show_default=True,
        help="The esg policy's A* pruning: schedlab (DP heuristic, dominance) or paper (blades and "
        "Pareto filter, sum-of-minimum-costs heuristic, no dominance); same plans, other times.",
    ),
    click.option(
        "--late",
        type=LazyChoice(_late_rules),
        default="drain",
        show_default=True,
        help="What a late head takes (no configuration fits its budget), every policy: drain (the "
        "cheapest whose batch the queued requests fill) or cheapest (the cheapest per request).",
    ),
    seed_flag(),
    click.option(
        "--max-events",
        type=WORK_CAP,
        default=10**8,
        show_default=True,
        help="Work cap in steps: refuse (exit 2) when requests x functions x (4 events + the "
        "policy's decision work), or the bursty process's on/off periods, exceed it.",
    ),
)


def simulate_esg(ctx: click.Context, f: dict[str, Any]) -> Outcome:
    """Load the applications, run the discrete-event simulator under the policy."""
    from schedlab.experiments.esg.policies import Factors, make_policy
    from schedlab.experiments.esg.simulator import SimConfig, load_apps, simulate
    from schedlab.solvers.errors import InvalidInput

    readers = WORKLOADS.names(scope="esg", trace=True)
    trace, arrivals, policy = f["trace"], f["arrivals"], f["policy"]
    if trace is not None and arrivals not in readers:
        raise InvalidInput(f"--trace: only with --arrivals {' or '.join(readers)}")
    apps = load_apps(f["apps_file"])
    cfg = SimConfig(
        load=f["load"],
        arrivals=arrivals,
        requests=f["requests"],
        invokers=f["invokers"],
        cold_start_ms=f["cold_start_ms"],
        dispatch=f["dispatch"],
        seed=f["seed"],
        trace=None if trace is None else str(trace),
        max_events=f["max_events"],
    )
    factors = Factors(
        gpu_sharing=not f["no_gpu_sharing"], batching=not f["no_batching"],
        replan=not f["no_replan"], pruning=f["pruning"],
    )  # fmt: skip
    pol = make_policy(policy, f["split"], factors, f["late"])
    try:  # the door's checks read the apps too: name the file unless the trace is named
        m = simulate(apps, pol, cfg)
    except InvalidInput as exc:
        raise exc if exc.source else exc.with_source(str(f["apps_file"])) from None
    extra: dict[str, Any] = {"late": f["late"]}
    if policy == "esg":
        extra["factors"] = factors.to_dict()
    out = {"policy": policy, "load": f["load"], "arrivals": arrivals, **extra, **m}
    return Outcome(out, lambda: _show_metrics(m))


def _show_metrics(m: dict[str, Any]) -> None:
    for k, v in m.items():
        click.echo(f"{k:18s} {v}")


SIMULATE_HELP = """Discrete-event serverless simulation of the applications under one policy.

    Load: see --load (the one definition, solvers/esg/limits.py LOAD_DEFINITION).

    \b
    Example:
      schedlab esg generate --stages 3 --configs 40 --seed 1 > app.json
      schedlab esg simulate --apps app.json --policy esg --load 0.6 --json
      schedlab esg simulate --apps app.json --load 0.6 --no-gpu-sharing --json
    """
simulate_cmd = add_simulate(esg, SimulateVerb(SIMULATE_HELP, SIMULATE_FLAGS, simulate_esg))
