"""Every loader under hostile files, through the CLI: exit 0 with finite JSON or exit 2 naming
the file; never 1. Kinds: sojourn instance, synergy snapshot (and its profiles), ESG
application (plan and simulate), ESG application list, Azure arrival trace, Philly trace (both
subjects), Synergy trace, SLAQ snapshot and loss file. JSON and text output are both run (a
lone surrogate in an id used to break only the text tables)."""

from __future__ import annotations

import atexit
import json
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.door.contract import check, run
from tests.door.strategies import (
    FIXED_PAYLOADS,
    close_stamps,
    dumps,
    extreme,
    hostile_text,
    json_values,
    mutate,
    paths,
)

INSTANCE = {
    "jobs": [
        {"id": "a", "sizes": [3, 10], "probs": [0.4, 0.6]},
        {"id": "b", "sizes": [5], "probs": [1.0]},
        {"id": "c", "sizes": [1, 2, 8], "probs": [0.2, 0.3, 0.5]},
    ]
}
SNAPSHOT = {
    "cluster": {
        "servers": 2,
        "gpus_per_server": 8,
        "cpus_per_server": 24,
        "mem_gb_per_server": 500,
    },
    "jobs": [
        {"id": "j0", "model": "res18", "gpus": 1, "remaining_s": 3600},
        {"id": "j1", "model": "gnmt", "gpus": 4},
        {"id": "j2", "model": "lstm", "gpus": 2},
    ],
}
APP = {
    "name": "app",
    "slo_ms": 400,
    "functions": [
        {
            "id": "f0",
            "configs": [
                {"batch": 1, "vcpus": 1, "gpu_share": 0.25, "latency_ms": 50},
                {"batch": 4, "vcpus": 2, "gpu_share": 0.5, "latency_ms": 80},
            ],
        },
        {
            "id": "f1",
            "configs": [{"batch": 2, "vcpus": 1, "gpu_share": 1.0, "latency_ms": 100}],
            "transfer_ms": 3,
        },
    ],
}
APP_DAG = {
    "name": "dag",
    "slo_ms": 300,
    "functions": [
        {"id": "s", "configs": [{"batch": 1, "vcpus": 2, "gpu_share": 0.5, "latency_ms": 20}]},
        {"id": "l", "configs": [{"batch": 2, "vcpus": 1, "gpu_share": 0.25, "latency_ms": 40}]},
        {"id": "r", "configs": [{"batch": 1, "vcpus": 4, "gpu_share": 1.0, "latency_ms": 30}]},
        {"id": "t", "configs": [{"batch": 1, "vcpus": 1, "gpu_share": 0.5, "latency_ms": 10}]},
    ],
    "edges": [["s", "l"], ["s", "r"], ["l", "t"], ["r", "t"]],
}
APP_LIST = [APP, APP_DAG]
AZURE_TRACE = (
    "TIMESTAMP,ContextTokens,GeneratedTokens\n"
    "2023-11-16 18:15:46.6805900,374,44\n"
    "2023-11-16 18:15:50.9951690,396,109\n"
    "2023-11-16 18:15:51.0000000,879,1\n"
    "2023-11-16 18:15:53.2000000,91,18\n"
)
#: The application `esg simulate --trace FILE` runs in the Azure trace cases.
_SIDE = Path(tempfile.mkdtemp(prefix="schedlab-door-"))
atexit.register(shutil.rmtree, _SIDE, True)
TRACE_APP = _SIDE / "trace_app.json"
TRACE_APP.write_text(json.dumps(APP))
PHILLY = (
    "timestamp,duration,num_gpus,cluster\n"
    "2017-10-09 07:01:55,3600,1,a\n"
    "2017-10-09 07:05:00,7200,2,b\n"
    "2017-10-09 08:00:00,600,4,a\n"
)
SLAQ_SNAPSHOT = {
    "total_cores": 16,
    "epoch_s": 3.0,
    "min_cores": 2,
    "jobs": [
        {"id": "a", "losses": [2.3, 1.7, 1.2, 1.0, 0.9], "core_s_per_iter": 4.0},
        {"id": "b", "losses": [5.0, 3.0, 2.2, 1.9], "core_s_per_iter": 2.5},
        {"id": "c", "losses": [1.0], "core_s_per_iter": 1.0},
    ],
}
LOSS_FILE = "# a loss curve\n2.3\n1.7\n1.2\n1.0\n0.9\n0.85\n0.82\n0.8\n"
SYNERGY_TRACE = (
    "job_id,model_name,arrival_s,num_iterations,gpu_demand\n0,res18,0,1000,1\n1,gnmt,60,500,2\n"
)


def commands(kind: str, f: str) -> list[list[str]]:
    """The commands that read a file of this kind (cheap methods, small work caps)."""
    return {
        "sojourn instance": [
            ["sojourn", "solve", f, "--objective", "B", "--method", "smith", "--json"],
            ["sojourn", "solve", f, "--objective", "B", "--method", "smith"],
        ],
        "synergy snapshot": [
            ["synergy", "allocate", f, "--method", "tune", "--json"],
            ["synergy", "allocate", f, "--method", "tune"],
        ],
        "esg application": [
            ["esg", "plan", f, "--method", "greedy", "--json"],
            ["esg", "plan", f, "--method", "astar"],
            ["esg", "simulate", "--apps", f, "--requests", "30", "--json"],
        ],
        "esg app list": [
            ["esg", "simulate", "--apps", f, "--requests", "30", "--policy", "esg", "--json"],
            ["esg", "simulate", "--apps", f, "--requests", "30", "--policy", "static"],
        ],
        "azure trace": [
            ["esg", "simulate", "--apps", str(TRACE_APP), "--arrivals", "azure", "--trace", f]
            + ["--requests", "30", "--json"],
        ],
        "philly trace": [
            [
                "sojourn",
                "simulate",
                "--workload",
                "philly",
                "--trace",
                f,
                "--servers",
                "8",
                "--policy",
                "fcfs",
                "--replications",
                "1",
                "--json",
            ],
            [
                "synergy",
                "simulate",
                "--workload",
                "philly",
                "--trace",
                f,
                "--policy",
                "fifo",
                "--alloc",
                "tune",
                "--max-rounds",
                "3000",
                "--json",
            ],
        ],
        "slaq snapshot": [
            ["slaq", "allocate", f, "--method", "greedy", "--json"],
            ["slaq", "allocate", f, "--method", "dp", "--json"],
            ["slaq", "allocate", f, "--method", "maxmin"],
        ],
        "slaq loss file": [["slaq", "predict", f, "--ahead", "2", "--json"]],
        "synergy trace": [
            [
                "synergy",
                "simulate",
                "--trace",
                f,
                "--policy",
                "fifo",
                "--alloc",
                "tune",
                "--max-rounds",
                "3000",
                "--json",
            ]
        ],
    }[kind]


KINDS = [
    "sojourn instance",
    "synergy snapshot",
    "esg application",
    "esg app list",
    "azure trace",
    "philly trace",
    "synergy trace",
    "slaq snapshot",
    "slaq loss file",
]
BASE = {
    "sojourn instance": dumps(INSTANCE),
    "synergy snapshot": dumps(SNAPSHOT),
    "esg application": dumps(APP),
    "esg app list": dumps(APP_LIST),
    "azure trace": AZURE_TRACE.encode(),
    "philly trace": PHILLY.encode(),
    "synergy trace": SYNERGY_TRACE.encode(),
    "slaq snapshot": dumps(SLAQ_SNAPSHOT),
    "slaq loss file": LOSS_FILE.encode(),
}


JSON_KINDS = [
    "sojourn instance",
    "synergy snapshot",
    "esg application",
    "esg app list",
    "slaq snapshot",
]


def run_all(kind: str, path: Path, data: bytes) -> None:
    path.write_bytes(data)
    for cmd in commands(kind, str(path)):
        check(f"file: {kind}", cmd, [str(path), path.name])


@pytest.mark.parametrize("kind", KINDS)
def test_valid_base_files_pass(kind, tmp_path):
    """The unmutated files are accepted (exit 0): the tests below start from working input."""
    p = tmp_path / "base"
    p.write_bytes(BASE[kind])
    for cmd in commands(kind, str(p)):
        assert check(f"file: {kind}", cmd, [str(p)]) == 0


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("payload", range(len(FIXED_PAYLOADS)))
def test_fixed_hostile_payloads(kind, payload, tmp_path):
    run_all(kind, tmp_path / "in.dat", FIXED_PAYLOADS[payload])


@pytest.mark.parametrize("kind", KINDS)
def test_bom_and_encodings(kind, tmp_path):
    """UTF-8 with a BOM reads like without; UTF-16 and Latin-1 are exit 2 naming the file."""
    text = BASE[kind].decode()
    p = tmp_path / "bom.dat"
    p.write_bytes(b"\xef\xbb\xbf" + BASE[kind])
    for cmd in commands(kind, str(p)):
        assert check(f"file: {kind}", cmd, [str(p)]) == 0
    for enc in ("utf-16", "utf-32"):
        p.write_bytes(text.encode(enc))
        for cmd in commands(kind, str(p)):
            assert check(f"file: {kind}", cmd, [str(p)]) == 2


@pytest.mark.parametrize("kind", JSON_KINDS[:4])
@settings(max_examples=100)
@given(data=st.data())
def test_json_files_with_one_hostile_field(kind, data, tmp_path_factory):
    base = json.loads(BASE[kind])
    path = data.draw(st.sampled_from(paths(base)))
    doc = mutate(base, path, data.draw(extreme))
    p = tmp_path_factory.mktemp("f") / "mutated.json"
    run_all(kind, p, dumps(doc))


@pytest.mark.parametrize("kind", JSON_KINDS[:4])
@settings(max_examples=50)
@given(doc=json_values)
def test_json_files_of_any_shape(kind, doc, tmp_path_factory):
    p = tmp_path_factory.mktemp("f") / "any.json"
    run_all(kind, p, dumps(doc))


@settings(max_examples=100)
@given(data=st.data())
def test_synergy_profiles_with_one_hostile_value(data, tmp_path_factory):
    """A snapshot's own profiles: throughputs, grid and ideals near 1e308, zero, negative."""
    from schedlab.solvers.synergy.profiles import default_profiles

    prof = default_profiles().to_dict()
    prof["models"] = {k: prof["models"][k] for k in ("res18", "gnmt", "lstm")}
    snap = {**SNAPSHOT, "profiles": prof}
    path = data.draw(st.sampled_from([p for p in paths(snap) if p[:1] == ["profiles"]]))
    doc = mutate(snap, path, data.draw(extreme))
    p = tmp_path_factory.mktemp("f") / "prof.json"
    p.write_bytes(dumps(doc))
    check(
        "file: synergy profiles",
        ["synergy", "allocate", str(p), "--method", "tune", "--json"],
        [str(p)],
    )


def _text_slots(doc: object, prefix: list | None = None) -> list[tuple[list, str]]:
    """Every string value ("value") and every object key ("key") of `doc`, by path."""
    prefix = prefix or []
    out: list[tuple[list, str]] = []
    if isinstance(doc, str):
        out.append((prefix, "value"))
    elif isinstance(doc, dict):
        for k, v in doc.items():
            out.append(([*prefix, k], "key"))
            out += _text_slots(v, [*prefix, k])
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out += _text_slots(v, [*prefix, i])
    return out


def _with_text(doc: object, path: list, how: str, text: str) -> object:
    """`doc` with the string at `path`, or the key at `path`, replaced by `text`."""
    if how == "value":
        return mutate(doc, path, text)
    doc = json.loads(json.dumps(doc))
    node = doc
    for key in path[:-1]:
        node = node[key]  # type: ignore[index]
    node[text] = node.pop(path[-1])  # type: ignore[union-attr]
    return doc


@pytest.mark.parametrize("kind", JSON_KINDS)
@settings(max_examples=60)
@given(data=st.data())
def test_json_files_with_hostile_text(kind, data, tmp_path_factory):
    """An id, a name, a model, an edge end or a key replaced by hostile text (lone surrogates,
    control and bidi characters, 10,000 characters): text and JSON output alike."""
    base = json.loads(BASE[kind])
    path, how = data.draw(st.sampled_from(_text_slots(base)))
    doc = _with_text(base, path, how, data.draw(hostile_text))
    run_all(kind, tmp_path_factory.mktemp("f") / "text.json", dumps(doc))


@pytest.mark.parametrize("kind", ["esg application", "esg app list"])
@settings(max_examples=40)
@given(data=st.data())
def test_esg_resources_no_invoker_holds(kind, data, tmp_path_factory):
    """vCPUs of some or all configurations of one function beyond an invoker (32): the rest are
    dropped; a function left with none is exit 2 naming it and the resource."""
    doc = json.loads(BASE[kind])
    apps = doc if isinstance(doc, list) else [doc]
    app = data.draw(st.sampled_from(apps))
    f = data.draw(st.sampled_from(app["functions"]))
    big = data.draw(st.sampled_from([32.000001, 33, 64, 1e6, 1e12]))
    every = data.draw(st.booleans()) or len(f["configs"]) == 1
    for k, c in enumerate(f["configs"]):
        if every or k == 0:
            c["vcpus"] = big
    p = tmp_path_factory.mktemp("f") / "big.json"
    p.write_bytes(dumps(doc))
    args = ["esg", "simulate", "--apps", str(p), "--requests", "20", "--json"]
    code = check(f"file: {kind}", args, [str(p)])
    assert code == (2 if every else 0), (f["id"], every)
    if every:
        msg = run(args).stderr
        assert f"function {f['id']!r}" in msg and "vCPUs" in msg, msg


@settings(max_examples=60)
@given(stamps=close_stamps)
def test_azure_traces_with_equal_or_close_timestamps(stamps, tmp_path_factory):
    """Two or all arrivals at one instant, fractions that round to the same microsecond, a
    single row: exit 0, or exit 2 naming the file (never NaN gaps)."""
    body = "".join(f"{s},10,5\n" for s in stamps)
    p = tmp_path_factory.mktemp("f") / "close.csv"
    run_all("azure trace", p, (AZURE_TRACE.splitlines()[0] + "\n" + body).encode())


CSV_CELLS = st.one_of(
    st.sampled_from(
        [
            "",
            "0",
            "-1",
            "1e308",
            "inf",
            "nan",
            "9" * 400,
            "2017-10-09 07:01:55",
            "9999-12-31 23:59:59",
            "2017-10-09T07:01:55+05:00",
            "253402300799",
            "1.5",
            "#x",
            "res18",
            "a,b",
            '"q"',
            "\u00e9",
        ]
    ),
    st.text(max_size=6),
)


@pytest.mark.parametrize("kind", ["philly trace", "synergy trace", "azure trace"])
@settings(max_examples=100)
@given(data=st.data())
def test_csv_traces_with_hostile_cells(kind, data, tmp_path_factory):
    lines = BASE[kind].decode().splitlines()
    row = data.draw(st.integers(1, len(lines) - 1))
    cells = lines[row].split(",")
    col = data.draw(st.integers(0, len(cells) - 1))
    cells[col] = data.draw(CSV_CELLS).replace("\n", " ").replace("\r", " ")
    lines[row] = ",".join(cells)
    if data.draw(st.booleans()):
        lines.insert(0, "# a comment line")
    p = tmp_path_factory.mktemp("f") / "trace.csv"
    run_all(kind, p, ("\n".join(lines) + "\n").encode())


@settings(max_examples=60)
@given(data=st.data())
def test_slaq_snapshot_with_one_hostile_field(data, tmp_path_factory):
    """SLAQ snapshot: one field (a loss, W_j, an id, the cores) replaced by an extreme value."""
    path = data.draw(st.sampled_from(paths(SLAQ_SNAPSHOT)))
    doc = mutate(SLAQ_SNAPSHOT, path, data.draw(extreme))
    run_all("slaq snapshot", tmp_path_factory.mktemp("f") / "snap.json", dumps(doc))


@settings(max_examples=25)
@given(doc=json_values)
def test_slaq_snapshot_of_any_shape(doc, tmp_path_factory):
    run_all("slaq snapshot", tmp_path_factory.mktemp("f") / "any.json", dumps(doc))


@settings(max_examples=40)
@given(data=st.data())
def test_slaq_loss_file_with_hostile_lines(data, tmp_path_factory):
    """A loss file with one line replaced (inf, nan, 1e308, huge digits, text, empty)."""
    lines = LOSS_FILE.splitlines()
    row = data.draw(st.integers(1, len(lines) - 1))
    lines[row] = data.draw(CSV_CELLS).replace("\n", " ").replace("\r", " ")
    p = tmp_path_factory.mktemp("f") / "loss.txt"
    run_all("slaq loss file", p, ("\n".join(lines) + "\n").encode())
