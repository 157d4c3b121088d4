"""The Synergy simulator's modules keep every class within 300 lines and every function within
100 (the project's size rule), so no class grows back into one that does everything."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from schedlab.experiments.synergy import sim_forward, sim_state, simulator

MAX_CLASS, MAX_FUNCTION = 300, 100


def _sizes(path: Path) -> list[tuple[str, str, int]]:
    """(kind, name, lines) of every class and function defined in the file, nested included."""
    tree = ast.parse(path.read_text())
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            kind = "class"
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            kind = "function"
        else:
            continue
        assert node.end_lineno is not None
        out.append((kind, node.name, node.end_lineno - node.lineno + 1))
    return out


@pytest.mark.parametrize("module", [simulator, sim_forward, sim_state], ids=lambda m: m.__name__)
def test_no_class_over_300_and_no_function_over_100_lines(module: object) -> None:
    path = Path(module.__file__)  # type: ignore[attr-defined]
    sizes = _sizes(path)
    assert any(kind == "class" for kind, _n, _l in sizes)  # the walk sees the classes
    limit = {"class": MAX_CLASS, "function": MAX_FUNCTION}
    too_big = [(kind, name, n) for kind, name, n in sizes if n > limit[kind]]
    assert not too_big, f"{path.name}: over the size limits: {too_big}"
