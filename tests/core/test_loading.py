"""Problem files read the same way in every subject: `load(path)` a file, `loads(text, source=)`
a JSON text; each round-trips `to_json` and names the file or source in its errors."""

from __future__ import annotations

import importlib
import inspect

import pytest

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.serialize import JsonFile
from schedlab.solvers.subjects import subjects


def _samples() -> dict[str, list[JsonFile]]:
    from schedlab.solvers.esg.generate import generate as esg_app
    from schedlab.solvers.esg.problem_queues import random_queues
    from schedlab.solvers.slaq.generate import generate_snapshot as slaq_snapshot
    from schedlab.solvers.sojourn.generate import generate as sojourn_instance
    from schedlab.solvers.synergy.generate import generate_snapshot as synergy_snapshot

    return {
        "esg": [esg_app(3, 4, 1), random_queues(2, 2, 3, 2, 1)],
        "slaq": [slaq_snapshot(3, 12, 1)],
        "sojourn": [sojourn_instance(4, 1)],
        "synergy": [synergy_snapshot(2, 5, 1, gpu_mix="multi")],
    }


def _file_types(subject: str) -> set[type]:
    """The JsonFile types of a subject's problem modules (`problem*.py`)."""
    out = set()
    for name in ("problem", "problem_queues"):
        try:
            mod = importlib.import_module(f"schedlab.solvers.{subject}.{name}")
        except ModuleNotFoundError:
            continue
        for _, obj in inspect.getmembers(mod, inspect.isclass):
            if issubclass(obj, JsonFile) and obj is not JsonFile and obj.__module__ == mod.__name__:
                out.add(obj)
    return out


SAMPLES = _samples()


def test_every_subject_and_file_type_has_a_sample():
    assert set(SAMPLES) == set(subjects())
    for subject, items in SAMPLES.items():
        assert {type(x) for x in items} == _file_types(subject), subject


@pytest.mark.parametrize(
    "problem", [p for items in SAMPLES.values() for p in items], ids=lambda p: type(p).__module__
)
def test_load_and_loads_round_trip(tmp_path, problem):
    cls = type(problem)
    assert cls.loads(problem.to_json()) == problem
    path = tmp_path / "p.json"
    problem.save(path)
    assert cls.load(path) == problem
    assert cls.load(str(path)) == problem


@pytest.mark.parametrize(
    "cls", sorted({type(p) for items in SAMPLES.values() for p in items}, key=str)
)
def test_errors_name_the_file_or_the_source(tmp_path, cls):
    with pytest.raises(InvalidInput) as err:
        cls.load(tmp_path / "missing.json")
    assert "missing.json" in str(err.value) and "not found" in str(err.value)
    with pytest.raises(InvalidInput) as err:
        cls.loads("{not json", source="<stdin>")
    assert str(err.value).startswith("<stdin>: ")
    with pytest.raises(InvalidInput) as err:
        cls.loads("[]", source="x.json")
    assert str(err.value).startswith("x.json: ")
