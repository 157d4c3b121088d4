"""Hostile input for `schedlab lop solve` (issue #64): the one number reader of the graph and
matrix files (`lop_text`), the memory budget checked before allocating, the time limit over
reading and preparation (a deterministic deadline, never real timing), short excerpts."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

import schedlab.solvers.lop.crossings as crossings
import schedlab.solvers.lop.graph as lop_graph
import schedlab.solvers.lop.graph_route as graph_route
import schedlab.solvers.lop.matrix as lop_matrix
import schedlab.solvers.lop.text as lop_text
from schedlab.experiments.cli import cli
from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.lop.crossings import SparseCrossings
from schedlab.solvers.lop.graph import parse_ocr_text, random_ocr_graph, write_ocr_text
from schedlab.solvers.lop.graph_route import solve_graph
from schedlab.solvers.lop.matrix import (
    dense_io_matrix,
    parse_lop_text,
    solve_lop_benchmark,
    write_lop_text,
)
from schedlab.solvers.result import Status
from schedlab.solvers.validate import Deadline

PASSED = Deadline(-math.inf)  # a deadline that has passed, whatever the clock says


class PassesAfter:
    """A deadline that has not passed for its first `calls` looks, and has passed after."""

    def __init__(self, calls: int) -> None:
        self.calls = calls

    def passed(self, within: float = 0.0) -> bool:
        self.calls -= 1
        return self.calls < 0

    def remaining(self, floor: float = 0.0) -> float:
        return floor


def lop_solve(path: Any, *args: str) -> Any:
    return CliRunner().invoke(cli, ["lop", "solve", str(path), *args])


# ---- numbers: ASCII digits only, finite, within the stated range ----------------------------
@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("p ocr 2 2 1\n1 \u2074\n", "line 2"),  # superscript four: str.isdigit takes it
        ("p ocr \u00b3 3 5\n", "line 1: n0 = '\u00b3'"),
        ("p ocr 2 2 1\n\uff11 3\n", "line 2"),  # full-width one
        ("p ocr 2 2 1\n1 3 4\n", "line 2"),
        ("p ocr 2 2 1\n+1 3\n", "line 2"),
        ("p ocr -2 2 0\n", "n0 = '-2' must be an integer in 0..10000000"),
        ("p ocr 2 2 1\np ocr 2 2 1\n1 3\n", "line 2: a second problem line (the first is line 1)"),
        ("p ocr 2 2 1\n1 3\n2 4\n", "line 3: the problem line (line 1) says m = 1 edges"),
        ("p ocr 0 2 1\n1 1\n", "line 2"),
        ("p ocr 2 2 1 \u00b2\n1 3\n", "line 1: cutwidth = '\u00b2'"),
    ],
)
def test_graph_numbers_are_ascii_counts_in_range(text, needle):
    with pytest.raises(InvalidInput, match=needle.replace("(", r"\(").replace(")", r"\)")):
        parse_ocr_text(text, "g.gr")


@pytest.mark.parametrize(
    ("token", "needle"),
    [
        ("1e308", "line 2, token '1e308' (entry row 1, column 2)"),
        ("1.7e308", "column 2"),
        ("-1e400", "column 2"),
        ("nan", "column 2"),
        ("inf", "column 2"),
        ("1_000", "column 2"),
        ("\uff11", "column 2"),  # full-width one: float() takes it
        ("\u00b9", "column 2"),
        ("0x10", "column 2"),
    ],
)
def test_matrix_entries_are_ascii_decimals_in_range(token, needle):
    with pytest.raises(InvalidInput, match=r"not a decimal number in ASCII") as exc:
        parse_lop_text(f"2\n0 {token}\n1 0\n", "m.mat")
    assert needle in str(exc.value) and f"{lop_matrix.ENTRY_SUM_LIMIT:.17g}" in str(exc.value)


def test_matrix_entries_whose_sum_leaves_the_exact_range_are_refused():
    big = 2**48  # each within range; four of them sum to 2^50
    text = f"3\n0 {big} {big}\n{big} 0 {big}\n0 0 0\n"
    with pytest.raises(InvalidInput, match=r"line 3, entry row 2, column 3: the absolute"):
        parse_lop_text(text, "m.mat")
    # a negative entry shifts all six off-diagonal costs: 2^47 + 6 * 2^47 is 7/8 of 2^50,
    # 2^48 + 6 * 2^48 is 7/4 of it
    neg = f"3\n0 -{2**47} 0\n0 0 0\n0 0 0\n"
    assert parse_lop_text(neg, "m.mat")[0, 1] == -(2**47)
    neg = f"3\n0 -{2**48} 0\n0 0 0\n0 0 0\n"
    with pytest.raises(InvalidInput, match=r"line 2, entry row 1, column 2: the smallest entry"):
        parse_lop_text(neg, "m.mat")


def test_a_huge_matrix_entry_is_refused_by_the_command_not_answered(tmp_path):
    f = tmp_path / "big.mat"
    f.write_text("3\n" + "1e308 1e308 1e308\n" * 3)
    res = lop_solve(f, "--json")
    assert res.exit_code == 2 and "line 2" in res.output and "Traceback" not in res.output
    g = tmp_path / "off.mat"
    g.write_text("3\n0 1.7e308 1.7e308\n1.7e308 0 1.7e308\n1.7e308 1.7e308 0\n")
    res = lop_solve(g, "--json")
    assert res.exit_code == 2 and "line 2" in res.output


def test_a_superscript_digit_in_a_graph_is_refused_with_exit_2(tmp_path):
    for k, text in enumerate(["p ocr 2 2 1\n1 \u2074\n", "p ocr \u00b3 3 5\n"]):
        f = tmp_path / f"s{k}.gr"
        f.write_text(text, encoding="utf-8")
        res = lop_solve(f, "--json")
        assert res.exit_code == 2, res.output
        assert f"line {2 - k}" in res.output and "internal error" not in res.output


@pytest.mark.parametrize("suffix", ["gr", "mat"])
def test_a_long_token_is_quoted_as_a_short_excerpt(tmp_path, suffix):
    f = tmp_path / f"long.{suffix}"
    digits = "9" * 100_000
    f.write_text(f"p ocr {digits} 2 0\n" if suffix == "gr" else f"2\n0 {digits}\n1 0\n")
    res = lop_solve(f)
    assert res.exit_code == 2 and "internal error" not in res.output
    assert "9" * lop_text.EXCERPT_CHARS + "'\u2026" in res.output
    assert len(res.output) < 400


def test_empty_and_comment_only_files_are_refused_in_the_right_words(tmp_path):
    for text, needle in [("", "empty file"), ("c only a comment\n", "no problem line")]:
        f = tmp_path / "x.gr"
        f.write_text(text)
        res = lop_solve(f)
        assert res.exit_code == 2 and needle in res.output


def test_valid_files_read_as_before_with_crlf_and_comments():
    g = random_ocr_graph(12, 9, 4)
    text = write_ocr_text(g)
    h = parse_ocr_text("c \u00e9t\u00e9 (a UTF-8 comment)\r\n" + text.replace("\n", "\r\n"))
    assert np.array_equal(h.ptr, g.ptr) and np.array_equal(h.nbr, g.nbr)
    M = dense_io_matrix(7, 3)
    assert np.array_equal(parse_lop_text(write_lop_text(M).replace("\n", "\r\n")), M)
    assert parse_lop_text("2 0 -1.5e2 7 .5").tolist() == [[0, -150.0], [7, 0.5]]


# ---- memory: checked from the counts, before allocating --------------------------------------
def test_a_huge_header_is_refused_before_anything_is_allocated(tmp_path):
    f = tmp_path / "h.gr"
    f.write_text("p ocr 10000000 10000000 0\n")  # 27 bytes
    res = lop_solve(f, "--json")
    assert res.exit_code == 2 and len(res.output) < 400
    assert f"n1 = '10000000' must be an integer in 0..{lop_graph.MAX_FREE_VERTICES}" in res.output


def test_the_header_counts_are_checked_against_the_memory_budget(monkeypatch):
    monkeypatch.setenv("SCHEDLAB_MEMORY_BUDGET_GB", str(1000 / 2**30))  # 1000 bytes
    with pytest.raises(InvalidInput, match=r"the graph g.gr \(4 free vertices, 20 edges"):
        parse_ocr_text("p ocr 5 4 20\n" + "x\n" * 30, "g.gr")  # refused before line 2


def test_overlapping_spans_are_counted_and_checked_before_the_pairs_are_built(monkeypatch):
    g = random_ocr_graph(30, 40, 1, mean_degree=4.0, span=30, isolated_share=0.0)
    cands = crossings.candidate_pairs(g, np.arange(g.n1))
    sc = SparseCrossings.of(g)
    assert cands >= len(sc.u) > 0  # every pair built was a candidate
    budget = crossings.CANDIDATE_BYTES * cands - 1
    monkeypatch.setenv("SCHEDLAB_MEMORY_BUDGET_GB", str(budget / 2**30))

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("the pairs were built")

    monkeypatch.setattr(crossings, "overlapping_pairs", never)
    with pytest.raises(InvalidInput, match="overlapping neighbour spans"):
        solve_graph(g)


def test_the_largest_solver_block_is_checked_before_any_block_is_solved(monkeypatch):
    g = random_ocr_graph(60, 60, 7, mean_degree=3.0, span=25, isolated_share=0.0)
    monkeypatch.setattr(graph_route, "BLOCK_BYTES_PER_PAIR", 2**40)

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("a block was solved")

    monkeypatch.setattr(graph_route._BlockSolver, "solve", never)
    with pytest.raises(InvalidInput, match="a block of .* free vertices"):
        solve_graph(g)


# ---- time: the limit covers reading and preparation ------------------------------------------
def test_reading_looks_at_the_deadline(monkeypatch):
    monkeypatch.setattr(lop_text, "DEADLINE_STRIDE", 1)
    text = write_ocr_text(random_ocr_graph(10, 10, 2))
    with pytest.raises(InvalidInput, match="time limit ran out while reading line 1"):
        parse_ocr_text(text, "g.gr", PASSED)
    with pytest.raises(InvalidInput, match="time limit ran out while reading line"):
        parse_lop_text(write_lop_text(dense_io_matrix(4, 1)), "m.mat", PASSED)
    assert parse_ocr_text(text, "g.gr", Deadline(math.inf)).m > 0


def test_a_graph_stopped_before_its_pairs_has_an_order_and_a_sound_bound(monkeypatch):
    g = random_ocr_graph(40, 40, 3, mean_degree=3.0, span=15)

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("pairs counted after the deadline")

    monkeypatch.setattr(crossings, "overlapping_pairs", never)
    r = solve_graph(g, deadline=PASSED)
    assert r.stats["stopped_while_preparing"] and r.bound == 0.0
    assert sorted(r.solution) == list(range(g.n1)) and r.value == g.crossings(r.solution)


def test_blocks_reached_after_the_deadline_take_their_forced_order(monkeypatch):
    g = random_ocr_graph(60, 60, 7, mean_degree=3.0, span=25, isolated_share=0.0)
    best = solve_graph(g, deadline=Deadline.after(60), seed=0)
    assert best.status is Status.OPTIMAL

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("a block was solved after the deadline")

    monkeypatch.setattr(graph_route._BlockSolver, "solve", never)
    r = solve_graph(g, deadline=PassesAfter(1))  # type: ignore[arg-type]
    assert r.stats["blocks_stopped"] >= 1 and r.stats["all_blocks_closed"] is False
    assert r.bound is not None and r.bound <= best.value <= r.value
    assert r.value == g.crossings(r.solution)


def test_a_matrix_stopped_before_the_core_has_an_order_and_a_sound_bound():
    M = dense_io_matrix(6, 2)
    r = solve_lop_benchmark(M, deadline=PASSED)
    best = solve_lop_benchmark(M)
    assert r.stats["stopped_while_preparing"] and r.solution == list(range(6))
    assert r.value <= best.value <= r.bound


def test_the_command_counts_reading_against_the_time_limit(tmp_path, monkeypatch):
    monkeypatch.setattr(Deadline, "after", classmethod(lambda cls, s: PASSED))
    monkeypatch.setattr(lop_text, "DEADLINE_STRIDE", 1)
    f = tmp_path / "g.gr"
    f.write_text(write_ocr_text(random_ocr_graph(10, 10, 2)))
    res = lop_solve(f, "--time-limit", "5", "--json")
    assert res.exit_code == 2 and "raise --time-limit" in res.output
    monkeypatch.setattr(lop_text, "DEADLINE_STRIDE", 10**9)
    res = lop_solve(f, "--time-limit", "5", "--json")
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["stats"]["stopped_while_preparing"] and out["bound"] == 0.0


# ---- files that are not regular files ----------------------------------------------------------
def test_a_directory_and_a_fifo_are_refused_before_opening(tmp_path):
    import os

    d = tmp_path / "d.gr"
    d.mkdir()
    assert lop_solve(d).exit_code == 2
    fifo = tmp_path / "f.gr"
    os.mkfifo(fifo)
    res = lop_solve(fifo)
    assert res.exit_code == 2 and "not a regular file" in res.output


def test_the_edges_are_scanned_once_per_solve_not_once_per_block(monkeypatch):
    g = random_ocr_graph(400, 400, 5, span=3)
    calls = []
    real = lop_graph.spans

    def counted(ptr: np.ndarray, nbr: np.ndarray) -> Any:
        calls.append(len(nbr))
        return real(ptr, nbr)

    monkeypatch.setattr(lop_graph, "spans", counted)
    r = solve_graph(g, deadline=Deadline.after(60), seed=0)
    assert r.stats["blocks"] >= 50 and len(calls) <= 2
    assert r.value == g.crossings(r.solution)
