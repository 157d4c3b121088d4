"""Every numeric flag of every command under hostile text: exit 0, or exit 2 naming the flag
(or the file/field it led to); never 1, never a hang (base commands carry small work caps)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings

from tests.door.contract import check
from tests.door.strategies import flag_text
from tests.door.test_files import (
    APP,
    INSTANCE,
    LOSS_FILE,
    SLAQ_SNAPSHOT,
    SNAPSHOT,
    SYNERGY_TRACE,
)


@pytest.fixture(scope="module", autouse=True)
def small_memory_budget():
    """50 MiB: large legal requests (--samples, --servers) are refused fast by the budget."""
    mp = pytest.MonkeyPatch()
    mp.setenv("SCHEDLAB_MEMORY_BUDGET_GB", "0.05")
    yield
    mp.undo()


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, str]:
    d: Path = tmp_path_factory.mktemp("flags")
    out = {}
    for name, text in (
        ("inst", json.dumps(INSTANCE)),
        ("snap", json.dumps(SNAPSHOT)),
        ("app", json.dumps(APP)),
        ("trace", SYNERGY_TRACE),
        ("slaqsnap", json.dumps(SLAQ_SNAPSHOT)),
        ("loss", LOSS_FILE),
    ):
        (d / name).write_text(text)
        out[name] = str(d / name)
    out["dir"] = str(d)
    return out


SLAQ_SIM = "--policy fair --max-epochs 3000 "
SYN = "--workload synthetic --policy fcfs --max-events 100000 "
# (command, flag, the rest of the command line); {inst}/{snap}/{app}/{trace} are files.
CASES = [
    ("sojourn generate", "--n", "--seed 1"),
    ("sojourn generate", "--seed", "--n 3"),
    ("sojourn generate", "--max-checkpoints", "--n 3 --seed 1"),
    ("sojourn evaluate {inst}", "--k", "--order a,b,c --objective TK"),
    ("sojourn evaluate {inst}", "--samples", "--order a,b,c --objective A --how montecarlo"),
    (
        "sojourn evaluate {inst}",
        "--seed",
        "--order a,b,c --objective A --how montecarlo --samples 100",
    ),
    ("sojourn solve {inst}", "--time-limit", "--objective B --method cpsat"),
    ("sojourn solve {inst}", "--seed", "--objective B --method cpsat"),
    ("sojourn solve {inst}", "--num-workers", "--objective B --method cpsat"),
    ("sojourn solve {inst}", "--scale-bits", "--objective B --method cpsat"),
    ("sojourn solve {inst}", "--max-deterministic-time", "--objective B --method cpsat"),
    ("sojourn solve {inst}", "--k", "--objective DK --method smith"),
    ("sojourn solve {inst}", "--rounds", "--objective B --method batchlocal --time-limit 0.2"),
    ("sojourn solve {inst}", "--restarts", "--objective B --method batchlocal --time-limit 0.2"),
    ("synergy solve {snap}", "--max-deterministic-time", "--method cpsat"),
    ("esg solve {app}", "--time-unit-ms", "--method cpsat"),
    ("esg solve {app}", "--max-work", "--method brute --backend numpy"),
    ("esg solve {app}", "--max-states", "--method split_opt"),
    ("esg solve {app}", "--brute-cap", "--method split_opt"),
    ("esg solve {app}", "--max-nodes", "--method astar_dag"),
    (
        "sojourn simulate",
        "--servers",
        SYN + "--jobs 30 --replications 1",
    ),
    (
        "sojourn simulate",
        "--load",
        SYN + "--servers 2 --jobs 30 --replications 1",
    ),
    (
        "sojourn simulate",
        "--seed",
        SYN + "--servers 2 --jobs 30 --replications 1",
    ),
    (
        "sojourn simulate",
        "--replications",
        SYN + "--servers 2 --jobs 30",
    ),
    (
        "sojourn simulate",
        "--jobs",
        SYN + "--servers 2 --replications 1",
    ),
    (
        "sojourn simulate",
        "--max-checkpoints",
        SYN + "--servers 2 --jobs 30 --replications 1",
    ),
    (
        "sojourn simulate",
        "--max-events",
        "--workload synthetic --servers 2 --policy fcfs --jobs 30 --replications 1",
    ),
    ("synergy snapshot", "--servers", "--jobs 4 --seed 1"),
    ("synergy snapshot", "--jobs", "--seed 1 --servers 2"),
    ("synergy snapshot", "--seed", "--jobs 4"),
    ("synergy snapshot", "--task-mix", "--jobs 4 --seed 1"),
    ("synergy solve {snap}", "--time-limit", "--method cpsat"),
    ("synergy solve {snap}", "--seed", "--method cpsat"),
    ("synergy solve {snap}", "--num-workers", "--method cpsat"),
    ("synergy solve {snap}", "--threads", "--method milp"),
    ("synergy solve {snap}", "--max-work", "--method enum"),
    ("synergy solve {snap}", "--time-limit", "--method milp"),
    ("synergy simulate", "--load", "--policy fifo --alloc tune --jobs 40 --max-rounds 3000"),
    ("synergy simulate", "--servers", "--policy fifo --alloc tune --jobs 40 --max-rounds 3000"),
    ("synergy simulate", "--jobs", "--policy fifo --alloc tune --max-rounds 3000"),
    ("synergy simulate", "--seed", "--policy fifo --alloc tune --jobs 40 --max-rounds 3000"),
    ("synergy simulate", "--round-s", "--policy fifo --alloc tune --jobs 40 --max-rounds 3000"),
    (
        "synergy simulate",
        "--time-limit",
        "--policy fifo --alloc opt --trace {trace} --max-rounds 3000",
    ),
    ("synergy simulate", "--window", "--policy fifo --alloc tune --jobs 40 --max-rounds 3000"),
    ("synergy simulate", "--max-rounds", "--policy fifo --alloc tune --trace {trace}"),
    ("esg generate", "--stages", "--configs 5"),
    ("esg generate", "--configs", "--stages 2"),
    ("esg generate", "--seed", "--stages 2 --configs 5"),
    ("esg generate", "--cpu-configs", "--stages 2 --configs 5"),
    ("esg generate", "--slo-ms", "--measured resnet50"),
    ("esg solve {app}", "--budget-ms", "--method astar"),
    ("esg solve {app}", "--dp-buckets", "--method astar"),
    ("esg solve {app}", "--dp-buckets", "--method astar --budget-ms 1e-6"),
    ("esg solve {app}", "--time-limit", "--method cpsat"),
    ("esg solve {app}", "--seed", "--method cpsat"),
    ("esg solve {app}", "--num-workers", "--method cpsat"),
    ("esg solve {app}", "--threads", "--method milp"),
    ("esg simulate --apps {app}", "--load", "--requests 50"),
    ("esg simulate --apps {app}", "--requests", "--max-events 100000"),
    ("esg simulate --apps {app}", "--invokers", "--requests 50"),
    ("esg simulate --apps {app}", "--cold-start-ms", "--requests 50"),
    ("esg simulate --apps {app}", "--seed", "--requests 50"),
    ("esg simulate --apps {app}", "--max-events", "--requests 50"),
    ("esg simulate --apps {app}", "--load", "--requests 50 --arrivals bursty"),
    ("esg simulate --apps {app}", "--load", "--requests 50 --arrivals azure"),
    ("esg simulate --apps {app}", "--requests", "--arrivals bursty --max-events 100000"),
    ("esg simulate --apps {app}", "--max-events", "--requests 50 --arrivals bursty --load 1e-3"),
    ("esg simulate --apps {app}", "--invokers", "--requests 50 --policy static"),
    ("esg simulate --apps {app}", "--load", "--requests 50 --policy infless --arrivals bursty"),
    ("slaq snapshot", "--jobs", "--cores 16 --seed 1"),
    ("slaq snapshot", "--cores", "--jobs 3 --seed 1"),
    ("slaq snapshot", "--seed", "--jobs 3 --cores 16"),
    ("slaq solve {slaqsnap}", "--time-limit", "--method dp"),
    ("slaq solve {slaqsnap}", "--seed", "--method cpsat"),
    ("slaq solve {slaqsnap}", "--num-workers", "--method cpsat"),
    ("slaq solve {slaqsnap}", "--resolution", "--method cpsat"),
    ("slaq solve {slaqsnap}", "--max-deterministic-time", "--method cpsat"),
    ("slaq solve {slaqsnap}", "--max-work", "--method enum"),
    ("slaq solve {slaqsnap}", "--threads", "--method milp"),
    ("slaq predict {loss}", "--ahead", ""),
    ("slaq predict {loss}", "--decay", "--model naive"),
    ("slaq predict {loss}", "--max-fits", "--model naive --scoring authors"),
    ("slaq simulate", "--jobs", SLAQ_SIM),
    ("slaq simulate", "--cores", SLAQ_SIM + "--jobs 4"),
    ("slaq simulate", "--cores", SLAQ_SIM + "--jobs 12 --arrival-mean 0.5 --scaling fixed"),
    ("slaq simulate", "--jobs", SLAQ_SIM + "--cores 2 --arrival-mean 0.1"),
    ("slaq simulate", "--arrival-mean", SLAQ_SIM + "--jobs 20 --cores 4"),
    ("slaq simulate", "--arrival-mean", SLAQ_SIM + "--jobs 4"),
    ("slaq simulate", "--epoch-s", SLAQ_SIM + "--jobs 4"),
    ("slaq simulate", "--seed", SLAQ_SIM + "--jobs 4"),
    ("slaq simulate", "--max-epochs", "--policy fair --jobs 4"),
    ("slaq simulate", "--min-cores", SLAQ_SIM + "--jobs 4"),
    ("slaq simulate", "--w-min", SLAQ_SIM + "--jobs 4"),
    ("slaq simulate", "--w-max", SLAQ_SIM + "--jobs 4"),
    ("slaq simulate", "--w-min", SLAQ_SIM + "--jobs 4 --w-max 1e-3"),
    ("slaq simulate", "--w-max", SLAQ_SIM + "--jobs 4 --w-min 50"),
    ("slaq simulate", "--model", SLAQ_SIM + "--jobs 4"),
    ("slaq simulate", "--cores", SLAQ_SIM + "--jobs 12 --arrival-mean 0.1 --min-cores 1"),
]


@pytest.mark.parametrize(("command", "flag", "rest"), CASES, ids=[f"{c} {f}" for c, f, _ in CASES])
@settings(max_examples=20)
@given(value=flag_text)
def test_flag(command, flag, rest, value, files):
    args = (
        command.format(**files).split() + [flag, value] + rest.format(**files).split() + ["--json"]
    )
    if args[:2] in (
        ["sojourn", "generate"],
        ["synergy", "snapshot"],
        ["esg", "generate"],
        ["slaq", "snapshot"],
    ):
        args.remove("--json")  # these print a file, not a result
    names = [flag, f"{flag[2:]}:", "Invalid value", "No such option", "work cap", *files.values()]
    check(f"flag: {command.split()[0]} {command.split()[1]} {flag}", args, names)
