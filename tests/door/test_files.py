"""Every loader under hostile files, through the CLI: exit 0 with finite JSON or exit 2 naming
the file; never 1. Kinds: sojourn instance, synergy snapshot (and its profiles), ESG
application, Philly trace (both subjects), Synergy trace, SLAQ snapshot and loss file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.door.contract import check
from tests.door.strategies import FIXED_PAYLOADS, dumps, extreme, json_values, mutate, paths

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
            ["sojourn", "solve", f, "--objective", "B", "--method", "smith", "--json"]
        ],
        "synergy snapshot": [["synergy", "allocate", f, "--method", "tune", "--json"]],
        "esg application": [["esg", "plan", f, "--method", "greedy", "--json"]],
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
    "philly trace",
    "synergy trace",
    "slaq snapshot",
    "slaq loss file",
]
BASE = {
    "sojourn instance": dumps(INSTANCE),
    "synergy snapshot": dumps(SNAPSHOT),
    "esg application": dumps(APP),
    "philly trace": PHILLY.encode(),
    "synergy trace": SYNERGY_TRACE.encode(),
    "slaq snapshot": dumps(SLAQ_SNAPSHOT),
    "slaq loss file": LOSS_FILE.encode(),
}


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


@pytest.mark.parametrize("kind", ["sojourn instance", "synergy snapshot", "esg application"])
@settings(max_examples=100)
@given(data=st.data())
def test_json_files_with_one_hostile_field(kind, data, tmp_path_factory):
    base = json.loads(BASE[kind])
    path = data.draw(st.sampled_from(paths(base)))
    doc = mutate(base, path, data.draw(extreme))
    p = tmp_path_factory.mktemp("f") / "mutated.json"
    run_all(kind, p, dumps(doc))


@pytest.mark.parametrize("kind", ["sojourn instance", "synergy snapshot", "esg application"])
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


@pytest.mark.parametrize("kind", ["philly trace", "synergy trace"])
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
