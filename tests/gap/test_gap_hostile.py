"""`schedlab gap` on hostile input: a refused run writes nothing (a previous run's files, its
manifest among them, stay byte for byte), and a damaged gap cache is recomputed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from schedlab.experiments.cli import cli


def _gap(out: Path, *args: str):
    return CliRunner().invoke(cli, ["gap", *args, "--out", str(out), "--workers", "1"])


def _snapshot(root: Path) -> dict[str, tuple[bytes, int] | None]:
    """Every path under `root`: a file's bytes and modification time, None for a folder."""
    out: dict[str, tuple[bytes, int] | None] = {}
    for p in sorted(root.rglob("*")):
        rel = str(p.relative_to(root))
        out[rel] = (p.read_bytes(), p.stat().st_mtime_ns) if p.is_file() else None
    return out


@pytest.fixture(scope="module")
def previous_run(tmp_path_factory) -> Path:
    """A folder holding a finished sojourn and esg gap run (their manifests, caches, files)."""
    out = tmp_path_factory.mktemp("previous")
    for args in (
        ["sojourn", "--methods", "smith"],
        ["esg", "--family", "default", "--methods", "split"],
    ):
        res = _gap(out, *args, "--size", "tiny", "--seeds", "1")
        assert res.exit_code == 0, res.output
    assert (out / "manifests" / "gap-sojourn.json").is_file()
    assert (out / "manifests" / "gap-esg.json").is_file()
    return out


REFUSALS = [
    (["sojourn", "--methods", "nosuch"], "--methods"),
    (["sojourn", "--methods", ""], "--methods"),
    (["sojourn", "--methods", ","], "--methods"),
    (["sojourn", "--methods", " , "], "--methods"),
    (["sojourn", "--methods", "smith,nosuch"], "--methods"),
    (["sojourn", "--methods", "smith[nosuch=1]"], "--methods"),
    (["sojourn", "--methods", "smith[rule"], "--methods"),
    (["sojourn", "--methods", "tag:nosuch"], "--methods"),
    (["sojourn", "--exact", "smith"], "--exact"),
    (["sojourn", "--exact", "nosuch"], "--exact"),
    (["sojourn", "--exact", ""], "--exact"),
    (["sojourn", "--family", ","], "--family"),
    (["sojourn", "--family", ""], "--family"),
    (["sojourn", "--family", "default,nosuch"], "nosuch"),
    # the first family is fine, the second cannot take the flag: neither runs
    (["esg", "--family", "queues,default", "--exact", "q_brute"], "--exact"),
    (["esg", "--family", "queues,default", "--methods", "split[nosuch=1]"], "--methods"),
]


@pytest.mark.parametrize(("args", "says"), REFUSALS, ids=[" ".join(a) for a, _ in REFUSALS])
def test_refused_run_leaves_a_previous_run_as_it_was(tmp_path, previous_run, args, says):
    out = tmp_path / "out"
    shutil.copytree(previous_run, out)
    before = _snapshot(out)
    res = _gap(out, *args, "--size", "tiny")
    assert res.exit_code == 2, res.output
    assert says in res.output
    assert "Traceback" not in res.output
    assert _snapshot(out) == before


@pytest.mark.parametrize(("args", "says"), REFUSALS, ids=[" ".join(a) for a, _ in REFUSALS])
def test_refused_run_creates_no_folder(tmp_path, args, says):
    out = tmp_path / "out"
    res = _gap(out, *args, "--size", "tiny")
    assert res.exit_code == 2, res.output
    assert says in res.output
    assert not out.exists()


@pytest.mark.parametrize(
    "damage",
    [b"\x00\xff\xfebinary\x80\n", b"[1, 2, 3]\n[4]\n"],
    ids=["binary", "json-list"],
)
def test_damaged_cache_file_is_recomputed(tmp_path, damage):
    """A gap cache file that is binary or a JSON list: the run exits 0 and recomputes it."""
    args = ("slaq", "--family", "default", "--size", "tiny", "--seeds", "1")
    res = _gap(tmp_path, *args)
    assert res.exit_code == 0, res.output
    caches = sorted((tmp_path / "slaq" / "gap-cache").glob("*.jsonl"))
    assert caches
    for cache in caches:
        cache.write_bytes(damage)
    res = _gap(tmp_path, *args)
    assert res.exit_code == 0, res.output
    assert "0 from the cache" in res.output  # every exact solve was computed again
    assert "(0 computed now)" not in res.output  # and every other method's cell
    for cache in caches:
        assert cache.read_bytes() != damage and cache.read_text().startswith('{"_config"')
    res = _gap(tmp_path, *args)
    assert res.exit_code == 0, res.output
    assert "(0 solved now" in res.output  # and the rewritten caches are reused
    assert "(0 computed now)" in res.output
