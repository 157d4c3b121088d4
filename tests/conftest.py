"""Shared fixtures."""

from __future__ import annotations

import pytest

from schedlab.solvers.sojourn.generate import generate
from schedlab.solvers.sojourn.problem import Instance


@pytest.fixture
def tiny_instance() -> Instance:
    return Instance.from_dict(
        {
            "jobs": [
                {"id": "a", "sizes": [3, 10], "probs": [0.4, 0.6]},
                {"id": "b", "sizes": [5], "probs": [1.0]},
                {"id": "c", "sizes": [1, 2, 8], "probs": [0.2, 0.3, 0.5]},
            ]
        }
    )


def random_instances(count: int, max_n: int = 6, max_checkpoints: int = 4, seed0: int = 0):
    """Seeded tiny instances with n cycling through 1..max_n."""
    return [
        generate(1 + s % max_n, seed0 + s, max_checkpoints=max_checkpoints) for s in range(count)
    ]
