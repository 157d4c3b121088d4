"""Instance validation, JSON round trip and the generator."""

from __future__ import annotations

import json
import math

import pytest

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.sojourn.generate import generate
from schedlab.solvers.sojourn.problem import Instance


def problems_of(data) -> list[str]:
    with pytest.raises(InvalidInput) as ei:
        Instance.from_dict(data)
    return ei.value.problems


def test_round_trip(tmp_path, tiny_instance):
    p = tmp_path / "i.json"
    tiny_instance.save(p)
    again = Instance.load(p)
    assert again == tiny_instance
    assert again.ids == ["a", "b", "c"]


def test_default_ids_are_positions():
    jobs = [{"sizes": [1], "probs": [1]}, {"sizes": [2], "probs": [1]}]
    inst = Instance.from_dict({"jobs": jobs})
    assert inst.ids == ["0", "1"]


def test_derived_quantities(tiny_instance):
    a = tiny_instance.jobs[0]
    assert a.success_prob == 0.6 and a.success_size == 10
    assert math.isclose(a.cancel_mass, 1.2) and math.isclose(a.mean_size, 7.2)


@pytest.mark.parametrize(
    "job, needle",
    [
        ({"id": "x", "sizes": [2, 1], "probs": [0.5, 0.5]}, "'sizes' must be strictly increasing"),
        ({"id": "x", "sizes": [0, 1], "probs": [0.5, 0.5]}, "'sizes' must be positive"),
        ({"id": "x", "sizes": [1, 2], "probs": [0.5, 0.6]}, "'probs' must sum to 1"),
        ({"id": "x", "sizes": [1, 2], "probs": [-0.5, 1.5]}, "'probs' must lie in [0, 1]"),
        ({"id": "x", "sizes": [1, 2], "probs": [1.0]}, "different lengths"),
        ({"id": "x", "sizes": [], "probs": []}, "'sizes' is empty"),
        ({"id": "x", "sizes": [1, float("nan")], "probs": [0.5, 0.5]}, "NaN or infinite"),
        ({"id": "x", "sizes": [1, float("inf")], "probs": [0.5, 0.5]}, "NaN or infinite"),
        ({"id": "x", "sizes": ["1"], "probs": [1]}, "non-numbers"),
        ({"id": "x", "sizes": [True], "probs": [1]}, "non-numbers"),
        ({"id": "x", "probs": [1]}, "'sizes' is missing"),
        ({"id": "x", "sizes": 3, "probs": [1]}, "must be a list of numbers"),
        ({"id": 7, "sizes": [1], "probs": [1]}, "'id' must be a non-empty string"),
        ({"id": "x", "sizes": [1], "probs": [1], "weight": 2}, "unknown field"),
        ("notajob", "must be an object"),
    ],
)
def test_each_validation_error(job, needle):
    probs = problems_of({"jobs": [job]})
    assert any(needle in p for p in probs), probs
    if isinstance(job, dict) and isinstance(job.get("id"), str):
        assert any("job 'x'" in p for p in probs), probs


def test_all_problems_reported_at_once():
    probs = problems_of(
        {
            "jobs": [
                {"id": "a", "sizes": [2, 1], "probs": [0.5, 0.5]},
                {"id": "b", "sizes": [1], "probs": [0.3]},
                {"id": "a", "sizes": [1], "probs": [1]},
            ],
            "extra": 1,
        }
    )
    text = "\n".join(probs)
    assert "job 'a'" in text and "job 'b'" in text and "duplicated" in text and "extra" in text
    assert len(probs) == 4


@pytest.mark.parametrize(
    "data, needle",
    [
        ({"jobs": []}, "'jobs' is empty"),
        ({}, "'jobs' must be a list"),
        ({"jobs": "x"}, "'jobs' must be a list"),
        ([1, 2], "top level must be an object"),
        ({"jobs": [{"sizes": [1], "probs": [1]}], "name": 3}, "'name' must be a string"),
        ({"jobs": [{"sizes": [1], "probs": [1]}], "meta": 3}, "'meta' must be an object"),
    ],
)
def test_top_level_errors(data, needle):
    assert any(needle in p for p in problems_of(data))


def test_bad_json_names_the_source():
    with pytest.raises(InvalidInput) as ei:
        Instance.loads("{not json", source="f.json")
    assert "f.json" in str(ei.value) and "not valid JSON" in str(ei.value)


def test_missing_file(tmp_path):
    with pytest.raises(InvalidInput, match="cannot read instance file"):
        Instance.load(tmp_path / "nope.json")


def test_zero_success_probability_is_allowed_but_flagged():
    inst = Instance.from_dict({"jobs": [{"id": "z", "sizes": [1, 2], "probs": [1.0, 0.0]}]})
    assert inst.pi[0] == 0.0
    assert any("'z'" in w and "success probability is 0" in w for w in inst.warnings())


def test_generator_is_seeded_and_valid():
    a, b, c = generate(7, 3), generate(7, 3), generate(7, 4)
    assert a == b and a != c
    assert Instance.loads(a.to_json()) == a
    assert all(len(j.sizes) <= 4 for j in a.jobs)
    json.loads(a.to_json())


def test_generator_rejects_bad_arguments():
    with pytest.raises(InvalidInput, match="n: must lie in 1.."):
        generate(0, 1)
