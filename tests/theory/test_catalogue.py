"""The claims catalogues: the shipped ones load, and a wrong file is refused with every problem."""

from __future__ import annotations

import pytest

from schedlab.experiments.registry import figures
from schedlab.solvers.errors import InvalidInput
from schedlab.theory.catalogue import catalogue_paths, catalogues, load_catalogue
from schedlab.theory.claims import claims

GOOD = """
schema = 1
subject = "toy"
[paper]
title = "T"
citation = "C"
status = "published"
not_read = ["the evaluation"]
[[paper.read]]
kind = "abstract"
what = "the abstract"
[[claims]]
id = "a"
kind = "paper"
locator = "abstract"
statement = "s"
metric = "m"
primary = "p"
[claims.paper_setup]
workload = "w"
baseline = "b"
scale = "not stated in the sources read"
[claims.paper_number]
value = 3.4
unit = "x"
shape = "max"
[claims.ours]
file = "toy/t.csv"
column = "ratio"
study = "toy"
[claims.like_for_like]
workload = "yes"
metric = "yes"
baseline = "yes"
scale = "unknown"
"""


def test_a_good_file_loads(tmp_path):
    path = tmp_path / "claims.toml"
    path.write_text(GOOD)
    cat = load_catalogue(path)
    (c,) = cat.claims
    assert (c.key, c.kind, c.paper_number.value, c.reference[0]) == ("toy/a", "paper", 3.4, "paper")


def test_every_problem_is_listed_with_where_it_is(tmp_path):
    bad = (
        GOOD.replace('kind = "paper"', 'kind = "opinion"')
        .replace('scale = "unknown"', 'scale = "maybe"\ncolour = "red"')
        .replace('primary = "p"\n', "")
        .replace('shape = "max"', 'shape = "range"')
    )
    path = tmp_path / "claims.toml"
    path.write_text(bad)
    with pytest.raises(InvalidInput) as err:
        load_catalogue(path)
    text = str(err.value)
    assert str(path) in text
    for part in (
        "claims[0] (a).kind: 'opinion' is not one of",
        "like_for_like.scale: 'maybe' is not one of",
        "unknown key 'colour'",
        "missing required key 'primary'",
        "shape 'range' needs low and high",
    ):
        assert part in text, part


def test_shipped_catalogues_load_and_name_registered_studies():
    cats = catalogues()
    assert cats, "no catalogue under theory/<subject>/claims.toml"
    names = set(figures())
    for cat in cats.values():
        for c in cat.claims:
            if c.ours.file:
                assert c.ours.study in names, f"{c.key}: study {c.ours.study!r} not registered"
        for f in cat.figures:
            assert not f.ours or f.ours in names, f"{cat.subject} figure map: {f.ours!r}"


def test_every_subject_has_a_catalogue_and_every_claim_check_a_row():
    """Every subject (the packages, `solvers.subjects`) ships theory/<subject>/claims.toml, and
    every registered `verify` claim gets its kind and locator in its subject's catalogue: a
    fifth subject, or a new claim check, without a row fails here."""
    from schedlab.experiments.codeversion import subject_of_module
    from schedlab.solvers.subjects import subjects

    missing = sorted(set(subjects()) - set(catalogue_paths()))
    assert not missing, f"no theory/<subject>/claims.toml for {missing}"
    cats = catalogues()
    covered = {c.ours.claim or c.verify for cat in cats.values() for c in cat.claims}
    for spec in claims().values():
        subject = subject_of_module(spec.func.__module__)
        assert spec.id in covered, f"claim {spec.id} ({subject}) has no catalogue row"


def _load(tmp_path, text: str):
    path = tmp_path / "claims.toml"
    path.write_text(text)
    return load_catalogue(path)


SWEPT = GOOD.replace('study = "toy"', 'study = "toy"\nsweep = "load"')


def test_a_swept_row_with_a_number_must_name_its_point(tmp_path):
    with pytest.raises(InvalidInput, match=r"paper_point: a swept row .* must name its point"):
        _load(tmp_path, SWEPT)
    named = SWEPT + '[claims.paper_point]\nat = "load=0.5"\nwhy = "the paper\'s load"\n'
    (c,) = _load(tmp_path, named).claims
    assert (c.paper_point.at, c.paper_point.why) == ("load=0.5", "the paper's load")
    none = SWEPT + '[claims.paper_point]\nnone = "no load stated"\n'
    assert _load(tmp_path, none).claims[0].paper_point.none == "no load stated"
    both = SWEPT + '[claims.paper_point]\nnone = "n"\nwhy = "w"\n'
    with pytest.raises(InvalidInput, match="give why .* or none, not both"):
        _load(tmp_path, both)


def test_an_improvement_band_may_not_reach_no_effect(tmp_path):
    ok = (
        GOOD
        + '[claims.tolerance]\nrel = 0.1\n[claims.effect]\nbetter = "higher"\nno_effect = 1.0\n'
    )
    assert _load(tmp_path, ok).claims[0].effect.no_effect == 1.0
    wide = ok.replace("rel = 0.1", "rel = 0.8")  # band [0.68, 6.12] reaches 1.0
    with pytest.raises(InvalidInput, match=r"effect: the paper number's tolerance band .* reaches"):
        _load(tmp_path, wide)
    with pytest.raises(InvalidInput, match="better"):
        _load(tmp_path, ok.replace('better = "higher"', 'better = "up"'))


def test_a_row_left_out_of_a_size_says_why(tmp_path):
    full_only = GOOD.replace('primary = "p"\n', 'primary = "p"\nsizes = ["full"]\n')
    with pytest.raises(InvalidInput, match=r"sizes_why: say why size small does not compute"):
        _load(tmp_path, full_only)
    why = full_only.replace('sizes = ["full"]\n', 'sizes = ["full"]\nsizes_why = "its cost"\n')
    (c,) = _load(tmp_path, why).claims
    assert (c.sizes, c.sizes_why) == (("full",), "its cost")
    both = GOOD.replace('primary = "p"\n', 'primary = "p"\nsizes_why = "its cost"\n')
    with pytest.raises(InvalidInput, match="computed at every size: remove sizes_why"):
        _load(tmp_path, both)
