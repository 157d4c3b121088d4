"""Execute the shipped notebooks in place at their default size, keeping their outputs.

`make notebooks` runs this: each notebook runs top to bottom in a fresh kernel with its results
under `results/notebooks/` (never over a reproduction's `results/<subject>/` files), and is
saved with its outputs so that a code host shows the figures. The wall time of each run is
printed (and is what the notebook's opening cell states). Usage:

    python notebooks/execute.py [NAME.ipynb ...]   # default: every notebook in this folder
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent
TIMEOUT_S = 1800


def execute(path: Path, out: Path) -> float:
    """Run `path` in place (cwd: the repository root) and return its wall time in seconds."""
    nb = nbformat.read(path, as_version=4)
    os.environ["SCHEDLAB_NB_OUT"] = str(out)
    os.environ.pop("SCHEDLAB_NB_SIZE", None)  # the notebook's own default size
    t0 = time.perf_counter()
    NotebookClient(
        nb,
        timeout=TIMEOUT_S,
        kernel_name="python3",
        resources={"metadata": {"path": str(HERE.parent)}},
    ).execute()
    wall = time.perf_counter() - t0
    nbformat.write(nb, path)
    return wall


def main(argv: list[str]) -> int:
    names = argv or sorted(p.name for p in HERE.glob("*.ipynb"))
    out = HERE.parent / "results" / "notebooks"
    for name in names:
        path = HERE / name
        if not path.is_file():
            print(f"notebooks/execute.py: no notebook {name!r} in {HERE}", file=sys.stderr)
            return 2
        print(f"{name}: executed in {execute(path, out):.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
