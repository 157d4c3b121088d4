"""RowStore: a rerun resumes with unchanged settings and code, recomputes otherwise."""

from __future__ import annotations

import json

import pytest

from schedlab.experiments import codeversion
from schedlab.experiments.store import RowStore

KEYS = [{"i": i} for i in range(4)]


class Counter:
    """A compute function that counts its calls."""

    def __init__(self) -> None:
        self.calls: list[int] = []

    def __call__(self, key: dict) -> dict:
        self.calls.append(key["i"])
        return {"square": key["i"] ** 2}


def run(path, config=None) -> tuple[list[dict], list[int]]:
    count = Counter()
    rows = RowStore(path, ["i"], config=config or {"n": 4}).run(KEYS, count)
    return rows, count.calls


def test_rerun_with_same_code_and_settings_reuses_rows(tmp_path):
    path = tmp_path / "j.jsonl"
    rows, calls = run(path)
    assert calls == [0, 1, 2, 3]
    assert [r["square"] for r in rows] == [0, 1, 4, 9]
    again, calls = run(path)
    assert calls == []
    assert again == rows
    header = json.loads(path.read_text().splitlines()[0])
    assert header == {"_config": {"n": 4}, "_code": codeversion.code_version()}


def test_changed_code_version_recomputes(tmp_path, monkeypatch):
    path = tmp_path / "j.jsonl"
    run(path)
    monkeypatch.setattr(codeversion, "code_version", lambda: "another-version")
    rows, calls = run(path)
    assert calls == [0, 1, 2, 3]
    assert len(rows) == 4  # the old rows are dropped, not mixed in
    assert json.loads(path.read_text().splitlines()[0])["_code"] == "another-version"
    _, calls = run(path)
    assert calls == []  # and the new journal resumes under the new version


def test_changed_settings_recompute(tmp_path):
    path = tmp_path / "j.jsonl"
    run(path)
    _, calls = run(path, config={"n": 5})
    assert calls == [0, 1, 2, 3]


def test_journal_without_code_version_is_not_reused(tmp_path):
    """A journal written before code versions existed is recomputed, not trusted."""
    path = tmp_path / "j.jsonl"
    lines = [{"_config": {"n": 4}}] + [{"i": i, "square": -1} for i in range(4)]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    rows, calls = run(path)
    assert calls == [0, 1, 2, 3]
    assert [r["square"] for r in rows] == [0, 1, 4, 9]


def test_torn_last_line_is_recomputed(tmp_path):
    path = tmp_path / "j.jsonl"
    run(path)
    text = path.read_text()
    path.write_text(text[: text.rstrip("\n").rfind("\n") + 1] + '{"i": 3, "squ')
    rows, calls = run(path)
    assert calls == [3]
    assert sorted(r["i"] for r in rows) == [0, 1, 2, 3]
    _, calls = run(path)
    assert calls == []  # the recomputed row was appended on a line of its own


def test_empty_journal_starts_afresh(tmp_path):
    path = tmp_path / "j.jsonl"
    path.write_text("")
    run(path)
    _, calls = run(path)
    assert calls == []


@pytest.mark.parametrize(
    "content",
    [
        b"\xff\xfe\x00\x01binary\x80\n\x00",  # not UTF-8 at all
        '{"i": 0, "square": 0}\n'.encode("utf-16"),  # text, in another encoding
    ],
    ids=["binary", "utf16"],
)
def test_journal_that_is_not_utf8_is_recomputed(tmp_path, content):
    """A file add() never wrote (binary, another encoding) is dropped, never a traceback."""
    path = tmp_path / "j.jsonl"
    path.write_bytes(content)
    rows, calls = run(path)
    assert calls == [0, 1, 2, 3]
    assert [r["square"] for r in rows] == [0, 1, 4, 9]
    _, calls = run(path)
    assert calls == []  # the journal written in its place resumes


@pytest.mark.parametrize("header", ["[1, 2, 3]", '"text"', "42", "null"])
def test_header_that_is_not_an_object_is_recomputed(tmp_path, header):
    """A first line that is JSON but not a header object: the journal does not apply."""
    path = tmp_path / "j.jsonl"
    rows = [{"i": i, "square": -1} for i in range(4)]
    path.write_text(header + "\n" + "".join(json.dumps(r) + "\n" for r in rows))
    rows, calls = run(path)
    assert calls == [0, 1, 2, 3]
    assert [r["square"] for r in rows] == [0, 1, 4, 9]  # none of the old rows was trusted
    _, calls = run(path)
    assert calls == []


@pytest.mark.parametrize(
    "bad_row",
    ["[2, 4]", "2", '"row"', "null", '{"square": 4}', '{"j": 2, "square": 4}'],
    ids=["list", "number", "string", "null", "no-key", "other-key"],
)
def test_row_that_is_not_a_keyed_object_is_ignored(tmp_path, bad_row):
    """A journal line that is JSON but not a row add() wrote (not an object, or without the
    key fields) is ignored: the rows around it are reused and only the missing ones computed."""
    path = tmp_path / "j.jsonl"
    run(path)
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:3]) + bad_row + "\n" + "".join(lines[3:4]))  # rows 0, 1, 2
    rows, calls = run(path)
    assert calls == [3]
    assert sorted((r["i"], r["square"]) for r in rows) == [(0, 0), (1, 1), (2, 4), (3, 9)]
    _, calls = run(path)
    assert calls == []
