"""Safe output: an existing target that is not a regular file is refused (exit 2) before any
open for writing; missing parents are created; a parent that is a file is refused."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from schedlab.experiments.store import RowStore, results_dir, write_csv
from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.util import atomic_write_text, check_output_path, ensure_output_dir
from tests.door.contract import check


def hostile_targets(tmp: Path) -> dict[str, Path]:
    """A FIFO, a directory, a symlink to a FIFO, a dangling symlink, a path under a file."""
    fifo = tmp / "fifo"
    os.mkfifo(fifo)
    (tmp / "adir").mkdir()
    (tmp / "afile").write_text("x")
    (tmp / "link_to_fifo").symlink_to(fifo)
    (tmp / "dangling").symlink_to(tmp / "nowhere")
    return {
        "fifo": fifo,
        "directory": tmp / "adir",
        "symlink to fifo": tmp / "link_to_fifo",
        "dangling symlink": tmp / "dangling",
        "under a file": tmp / "afile" / "out.csv",
        "dev null": Path("/dev/null"),  # refused by the check, never opened for writing
    }


def test_atomic_write_refuses_non_regular_targets(tmp_path):
    for what, target in hostile_targets(tmp_path).items():
        with pytest.raises(InvalidInput) as ei:
            atomic_write_text(target, "data")
        assert str(target) in str(ei.value), what
    assert (tmp_path / "fifo").is_fifo() and (tmp_path / "link_to_fifo").is_symlink()
    assert Path("/dev/null").is_char_device()
    assert (tmp_path / "afile").read_text() == "x"


def test_atomic_write_creates_parents_and_replaces_regular_files(tmp_path):
    target = tmp_path / "a" / "b" / "c.txt"
    atomic_write_text(target, "one")
    atomic_write_text(target, "two")
    assert target.read_text() == "two"
    assert check_output_path(target) == target


def test_results_dirs_and_journals(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(InvalidInput, match="not a folder"):
        results_dir(tmp_path / "file", "sojourn")
    with pytest.raises(InvalidInput, match="not a folder"):
        ensure_output_dir(tmp_path / "file" / "sub")
    os.mkfifo(tmp_path / "journal.jsonl")
    with pytest.raises(InvalidInput, match="not a regular file"):
        RowStore(tmp_path / "journal.jsonl", key_fields=("k",), config={})
    with pytest.raises(InvalidInput, match="directory"):
        write_csv(tmp_path, [{"a": 1}])


@pytest.mark.parametrize("flag", ["--util-csv", "--jobs-csv"])
def test_simulate_csv_outputs_refuse_before_running(flag, tmp_path):
    base = tmp_path / flag[2:]
    base.mkdir()
    for what, target in hostile_targets(base).items():
        args = ["synergy", "simulate", "--workload", "static-100job", "--policy", "fifo"]
        args += ["--alloc", "tune", flag, str(target), "--json"]
        assert check("output: synergy simulate csv", args, [str(target)]) == 2, what
    assert (base / "fifo").is_fifo()


def test_esg_generate_out_refuses_a_fifo(tmp_path):
    os.mkfifo(tmp_path / "fifo")
    args = ["esg", "generate", "--stages", "2", "--configs", "3", "-o", str(tmp_path / "fifo")]
    assert check("output: esg generate -o", args, [str(tmp_path / "fifo")]) == 2
    args[-1] = str(tmp_path / "new" / "app.json")
    assert check("output: esg generate -o", args, []) == 0
    assert (tmp_path / "new" / "app.json").is_file()
