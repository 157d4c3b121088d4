"""The registry of claim checks: `register_claim` adds one, `claims()` lists them in order.

Each check is `func(size, seed, *, outdir, runner, **overrides) -> Verdict` (see
theory.verdict). Overrides let tests shrink a check or inject a deliberately broken input
(a non-optimal order declared optimal, a wrong quadrature size, ...) to see it fail.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.registry import Registry
from schedlab.theory.verdict import SIZES, RunnerFactory, Verdict


@dataclass(frozen=True)
class ClaimSpec:
    """A registered claim: id ("1", "2a", ...), a slug, a one-line statement, its check.

    `in_worker`: the check computes in its own body rather than through its runner's rows, so a
    reproduction runs the whole check as one cell in a worker process (never in the main one)."""

    id: str
    slug: str
    title: str
    func: Callable[..., Verdict]
    in_worker: bool = False


#: Every claim check, discovered in the `claim_*` modules of `schedlab.theory`.
CLAIMS: Registry[ClaimSpec] = Registry("claim", packages=("schedlab.theory",), modules=("claim_*",))


def register_claim(
    claim_id: str, slug: str, title: str, *, in_worker: bool = False
) -> Callable[[Callable[..., Verdict]], Callable[..., Verdict]]:
    """Register the decorated check as claim `claim_id` ("1", "2a", ...) with its slug and title
    (`in_worker`: see `ClaimSpec`)."""

    def deco(func: Callable[..., Verdict]) -> Callable[..., Verdict]:
        spec = ClaimSpec(claim_id, slug, title, func, in_worker)
        CLAIMS.add(claim_id, spec, summary=title)
        return func

    return deco


def _sort_key(claim_id: str) -> tuple[int, str]:
    m = re.match(r"(\d+)(.*)", claim_id)
    return (int(m.group(1)), m.group(2)) if m else (10**6, claim_id)


def claims() -> dict[str, ClaimSpec]:
    """All registered claims, ordered by id."""
    specs = {e.name: e.obj for e in CLAIMS.entries()}
    return {k: specs[k] for k in sorted(specs, key=_sort_key)}


def resolve(names: Sequence[str]) -> list[ClaimSpec]:
    """Claims by id or slug (all when `names` is empty); unknown names are InvalidInput."""
    specs = claims()
    if not names:
        return list(specs.values())
    by_slug = {s.slug: s for s in specs.values()}
    out, unknown = [], []
    for name in names:
        spec = specs.get(name) or by_slug.get(name)
        if spec is None:
            unknown.append(name)
        elif spec not in out:
            out.append(spec)
    if unknown:
        known = ", ".join(f"{s.id} ({s.slug})" for s in specs.values())
        raise InvalidInput(f"claim: unknown {', '.join(map(repr, unknown))}; choose from: {known}")
    return out


def run_claim(
    spec: ClaimSpec,
    size: str = "small",
    seed: int = 0,
    *,
    outdir: Path = Path("results"),
    runner: RunnerFactory | None = None,
    **overrides: Any,
) -> Verdict:
    """Run one claim check and stamp its size, seed and total runtime."""
    if size not in SIZES:
        raise InvalidInput(f"size: choose one of {', '.join(SIZES)} (got {size!r})")
    t0 = time.perf_counter()
    v = spec.func(size, seed, outdir=Path(outdir), runner=runner, **overrides)
    v.size, v.seed = size, seed
    v.runtime_s = time.perf_counter() - t0
    return v
