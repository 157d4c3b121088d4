"""What a claim check returns (`Verdict`), how it is registered, and how it runs its rows.

A claim is a function ``(size, seed, *, outdir, runner, **overrides) -> Verdict``. Long checks
compute one row per instance through a `Runner`: the default keeps rows in memory; the CLI
passes one backed by a resumable journal (experiments.store.RowStore), so `theory` never
imports `experiments`.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from schedlab.solvers.errors import InvalidInput

VERDICTS = ("holds", "fails", "inconclusive")
SIZES = ("small", "full")


@dataclass
class Verdict:
    """Outcome of one claim check, with the evidence behind it."""

    id: str
    title: str
    verdict: str
    instances: int
    worst: dict[str, Any]
    tolerances: dict[str, float]
    runtime_s: float
    evidence: dict[str, Any]
    summary: str
    size: str = "small"
    seed: int = 0
    files: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "verdict": self.verdict,
            "instances": self.instances,
            "worst": jsonable(self.worst),
            "tolerances": self.tolerances,
            "runtime_s": self.runtime_s,
            "summary": self.summary,
            "size": self.size,
            "seed": self.seed,
            "files": self.files,
            "evidence": jsonable(self.evidence),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Verdict:
        """The verdict that `to_dict` wrote (its JSON-safe form)."""
        names = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in d.items() if k in names})


def jsonable(x: Any) -> Any:
    if isinstance(x, dict):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [jsonable(v) for v in x]
    if hasattr(x, "item") and callable(x.item):
        x = x.item()
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


# ---- running rows -------------------------------------------------------------------------
class Runner(Protocol):
    """Computes the rows for the given keys, skipping those already finished."""

    def run(
        self,
        keys: Iterable[dict[str, Any]],
        compute: Callable[[dict[str, Any]], dict[str, Any]],
        *,
        desc: str = "",
    ) -> list[dict[str, Any]]: ...


RunnerFactory = Callable[[str, Sequence[str], dict[str, Any]], Runner]


class MemoryRunner:
    """Computes every row in memory with a progress bar on stderr (no files)."""

    def run(
        self,
        keys: Iterable[dict[str, Any]],
        compute: Callable[[dict[str, Any]], dict[str, Any]],
        *,
        desc: str = "",
    ) -> list[dict[str, Any]]:
        from tqdm import tqdm

        keys = list(keys)
        return [
            {**k, **compute(k)} for k in tqdm(keys, desc=desc or "rows", disable=None, leave=False)
        ]


def memory_runner(name: str, key_fields: Sequence[str], config: dict[str, Any]) -> Runner:
    return MemoryRunner()


def journal_name(prefix: str, config: dict[str, Any]) -> str:
    """A file stem that identifies a computation by its settings (same settings, same file)."""
    digest = hashlib.sha1(json.dumps(config, sort_keys=True).encode()).hexdigest()[:10]
    return f"{prefix}-{digest}"


def rows_for(
    runner: RunnerFactory | None,
    prefix: str,
    key_fields: Sequence[str],
    config: dict[str, Any],
    keys: Iterable[dict[str, Any]],
    compute: Callable[[dict[str, Any]], dict[str, Any]],
) -> list[dict[str, Any]]:
    """Run `compute` over `keys` with the given runner factory (memory by default)."""
    factory = runner or memory_runner
    wanted = [dict(k) for k in keys]
    rows = factory(journal_name(prefix, config), key_fields, config).run(
        wanted, compute, desc=prefix
    )
    index = {tuple(r[f] for f in key_fields): r for r in rows}
    return [index[tuple(k[f] for f in key_fields)] for k in wanted]


# ---- configuration and files -------------------------------------------------------------
def settings(
    defaults: dict[str, dict[str, Any]], size: str, overrides: dict[str, Any]
) -> dict[str, Any]:
    """The settings for `size`, with keyword overrides (unknown names are an error)."""
    if size not in defaults:
        raise InvalidInput(f"size: choose one of {', '.join(defaults)} (got {size!r})")
    base = dict(defaults[size])
    unknown = set(overrides) - set(base)
    if unknown:
        raise InvalidInput(
            f"claim settings: unknown name(s) {sorted(unknown)}; known: {sorted(base)}"
        )
    base.update(overrides)
    return base


def theory_dir(outdir: Path) -> Path:
    from schedlab.solvers.util import ensure_output_dir

    return ensure_output_dir(Path(outdir) / "theory")


def rel_gap(value: float, ref: float) -> float:
    """(value - ref) / |ref|, with 0 for ref == value == 0."""
    if ref == 0:
        return 0.0 if value == 0 else math.inf
    return (value - ref) / abs(ref)


def instance_seed(seed: int, n: int, i: int) -> int:
    """Seed of the i-th random instance with n jobs in a check run with `seed`."""
    return seed * 1_000_000 + n * 10_000 + i


def verdict_from(ok: bool, inconsistent: bool = False, *, enough: bool = True) -> str:
    """holds / fails, or inconclusive when the evidence is inconsistent or too thin."""
    if inconsistent or not enough:
        return "inconclusive"
    return "holds" if ok else "fails"
