"""The notebooks are committed as executed (`make notebooks`): a code host shows their outputs.

Each code cell ran (an execution count, in order), none raised, each notebook shows at least
one figure, and its opening cell says how long the run took. The tests that execute them (at
size tiny) live beside each subject's tests.
"""

from __future__ import annotations

import nbformat
import pytest

from tests.notebooks import NOTEBOOKS

NAMES = sorted(p.name for p in NOTEBOOKS.glob("*.ipynb"))


def test_there_is_one_notebook_per_subject():
    assert len(NAMES) == 4


@pytest.mark.parametrize("name", NAMES)
def test_a_shipped_notebook_holds_its_outputs(name):
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    counts = [c.get("execution_count") for c in code]
    assert all(isinstance(n, int) for n in counts), f"{name}: a cell was not executed"
    assert counts == sorted(counts), f"{name}: cells executed out of order"
    outputs = [o for c in code for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    assert any("image/png" in o.get("data", {}) for o in outputs), f"{name}: no figure shown"
    assert "Running it." in nb.cells[0].source and " s of wall time" in nb.cells[0].source
