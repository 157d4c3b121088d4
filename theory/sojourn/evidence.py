"""Evidence files of the sojourn claims: a worst instance saved beside the verdict."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from schedlab.solvers.sojourn.problem import Instance
from schedlab.theory.verdict import jsonable, theory_dir


def save_instance(inst: Instance, outdir: Path, stem: str, **meta: Any) -> str:
    """Save `inst` (with `meta` describing why) as results/theory/STEM.json, atomically."""
    merged = {**dict(inst.meta), **jsonable(meta)}
    out = Instance(inst.jobs, name=inst.name or stem, meta=merged)
    path = theory_dir(outdir) / f"{stem}.json"
    out.save(path)
    return str(path)
