"""One gap study: a family's instances x its methods on the sweep runner, joined to the optimum.

`run_study(subject, family, size, seed, outdir)` builds the family's ladder, one exact cell per
(instance, exact method) and one cell per (instance, compared method), runs both sets through
the sweep runner against the two caches (`cache`), and joins them: each row gets the instance's
proven optimum (the first exact method that proved it) or, failing that, the best bound any
method proved, and its `gap` to it (`gap_of`). Rows carry `proven`, so an unproven instance is
never counted as solved to optimality; tables and plots (`summary`, `plot`) read these rows.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from schedlab.experiments.gap.cache import KEY_FIELDS, open_cache
from schedlab.experiments.gap.cells import solve_cell
from schedlab.experiments.gap.spec import MethodSpec, Rung, family, parse_method
from schedlab.experiments.gap.versions import defining_module, generator_version, method_version
from schedlab.experiments.store import RowStore
from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.options import NoOptions, parse_options
from schedlab.solvers.result import PROOF_TOL
from schedlab.solvers.solve import METHODS

#: a method is optimal on an instance when its gap is at most this (relative gaps), or this
#: times max(1, |optimum|) (absolute gaps)
ZERO_TOL = 1e-9
PROVEN = ("optimal", "infeasible")


@dataclass
class Study:
    """A finished study: its settings, the joined rows (one per cell) and cache counts."""

    subject: str
    family: str
    size: str
    seed: int
    sense: str
    rungs: list[Rung]
    methods: list[MethodSpec]
    rows: list[dict[str, Any]]
    counts: dict[str, int] = field(default_factory=dict)
    summary: str = ""


def _say(text: str) -> None:
    """A line on stderr (above the run's progress bar when there is one)."""
    from schedlab.experiments.studies import current_progress

    bar = current_progress()
    if bar is not None:
        bar.line(text)
    else:
        click.echo(text, err=True)


def accepts(subject: str, name: str, kind: str) -> bool:
    kinds = METHODS.get(name, scope=subject).meta.get("kinds")
    return kinds is None or kind in kinds


def _by_tag(subject: str, tag: str, variants: dict[str, list[dict[str, Any]]]) -> list[MethodSpec]:
    out = []
    for name in METHODS.names(scope=subject, tag=tag):
        out += [MethodSpec(name, o) for o in variants.get(name, [{}])]
    return out


def resolve_methods(
    subject: str, meta: dict[str, Any], given: Sequence[str] | None
) -> list[MethodSpec]:
    """The compared methods: the family's tag (default "heuristic") or `given`, each `name`,
    `name[key=value,...]` or `tag:TAG`; unknown names and options are InvalidInput."""
    if not given:
        if isinstance(meta["methods"], str):
            return _by_tag(subject, meta["methods"], meta["variants"])
        given = list(meta["methods"])
    out: list[MethodSpec] = []
    for text in given:
        if text.startswith("tag:"):
            found = _by_tag(subject, text[4:], meta["variants"])
            if not found:
                raise InvalidInput(f"--methods: no {subject} method has the tag {text[4:]!r}")
            out += found
            continue
        spec = parse_method(text)
        entry = METHODS.get(spec.name, scope=subject)
        parse_options(entry.options or NoOptions, dict(spec.options), where=f"--methods {text}")
        out.append(spec)
    return list(dict.fromkeys(out))


def with_exact(subject: str, rungs: list[Rung], exact: str | None) -> list[Rung]:
    """`rungs` with `exact` as their only exact method (rungs it cannot solve dropped)."""
    if exact is None:
        return rungs
    entry = METHODS.get(exact, scope=subject)
    if not entry.meta.get("exact"):
        names = ", ".join(METHODS.names(scope=subject, tag="exact"))
        raise InvalidInput(f"--exact: {exact!r} is not an exact {subject} method; choose: {names}")
    kept = [
        dataclasses.replace(r, exact=(exact,)) for r in rungs if accepts(subject, exact, r.kind)
    ]
    if not kept:
        kinds = ", ".join(sorted({r.kind for r in rungs}))
        raise InvalidInput(f"--exact: {exact!r} solves none of this study's kinds ({kinds})")
    if len(kept) < len(rungs):
        left = sorted({r.label for r in rungs} - {r.label for r in kept})
        _say(f"gap: --exact {exact} does not solve rungs {left}; left out")
    return kept


#: a heuristic's cell solves up to this many instances of a rung (its solves are fast; one cell
#: per instance would cost more in the sweep's per-cell overhead than in solving)
CHUNK = 25


@dataclass(frozen=True)
class _Planned:
    """One (instance, method) of the study: where it sits, the cell that computes it (its
    cache key) and its position among that cell's instances."""

    rung: int
    i: int
    seed: int
    method: MethodSpec
    role: str  # "exact" or "method"
    key: dict[str, Any]
    pos: int = 0


def _key(
    gen: tuple[str, str], rung: Rung, seeds: list[int], spec: MethodSpec, limit: float | None,
    version: str,
) -> dict[str, Any]:  # fmt: skip
    values = (gen[0], rung.params_key, json.dumps(seeds), gen[1], spec.name, spec.options_key,
              limit, version)  # fmt: skip
    return dict(zip(KEY_FIELDS, values, strict=True))


def plan_cells(
    subject: str,
    meta: dict[str, Any],
    rungs: list[Rung],
    methods: list[MethodSpec],
    seed: int,
    count: int | None,
) -> list[_Planned]:
    """Every (instance, method) of the study, in (rung, instance, method) order: exact methods
    one instance per cell, heuristics `CHUNK` instances of a rung per cell."""
    g = meta["generator"]
    gen = (f"{defining_module(g)}:{g.__qualname__}", generator_version(g))
    versions: dict[str, str] = {}

    def version(name: str) -> str:
        if name not in versions:
            versions[name] = method_version(subject, name)
        return versions[name]

    out = []
    for r, rung in enumerate(rungs):
        exact = [MethodSpec(m, meta["exact_options"].get(m, {})) for m in rung.exact]
        others = [m for m in methods if accepts(subject, m.name, rung.kind) and m not in exact]
        n = rung.count if count is None else count
        seeds = [meta["seed_rule"](seed, rung, i) for i in range(n)]
        here = []
        for k, spec in enumerate(exact + others):
            is_exact = bool(METHODS.get(spec.name, scope=subject).meta.get("exact"))
            limit = rung.time_limit_s if is_exact else None
            size, role = (1 if is_exact else CHUNK), ("exact" if k < len(exact) else "method")
            for c0 in range(0, n, size):
                chunk = seeds[c0 : c0 + size]
                key = _key(gen, rung, chunk, spec, limit, version(spec.name))
                here += [_Planned(r, c0 + j, s, spec, role, key, j) for j, s in enumerate(chunk)]
        out += sorted(here, key=lambda p: p.i)  # stable: per instance, exact methods first
    return out


def _run(store: RowStore, planned: list[_Planned], desc: str) -> tuple[list[dict[str, Any]], int]:
    """The cached result of each of `planned` (computing the missing cells); how many cells
    were computed."""
    unique = list({tuple(p.key.values()): p.key for p in planned}.values())
    todo = sum(not store.done(**k) for k in unique)
    rows = store.run(unique, solve_cell, desc=desc)
    index = {tuple(r[f] for f in KEY_FIELDS): r for r in rows}
    return [index[tuple(p.key.values())]["results"][p.pos] for p in planned], todo


def gap_of(value: float | None, bound: float | None, sense: str, kind: str) -> float | None:
    """How far `value` is from `bound` on the bad side: (value - bound) when minimizing,
    (bound - value) when maximizing, divided by |bound| for relative gaps (1e-12 floor)."""
    if value is None or bound is None:
        return None
    diff = value - bound if sense == "min" else bound - value
    return diff if kind == "absolute" else diff / max(abs(bound), 1e-12)


def _best_bound(cached: list[dict[str, Any]], sense: str) -> float | None:
    bounds = [
        c["bound"]
        for c in cached
        if c["bound"] is not None and c["status"] in ("optimal", "feasible", "timeout")
    ]
    if not bounds:
        return None
    return max(bounds) if sense == "min" else min(bounds)


def join_instance(
    rung: Rung, planned: list[_Planned], cached: list[dict[str, Any]], sense: str
) -> list[dict[str, Any]]:
    """The rows of one instance: the reference is the first exact cell (in the rung's order)
    that proved its status; its optimum, else the best bound, is what every gap is taken to."""
    ref = next(
        (
            c
            for p, c in zip(planned, cached, strict=True)
            if p.role == "exact" and c["status"] in PROVEN
        ),
        None,
    )
    proven = ref is not None and ref["status"] == "optimal"
    optimum = ref["value"] if proven and ref is not None else None
    best = optimum if proven else _best_bound(cached, sense)
    out = []
    for p, c in zip(planned, cached, strict=True):
        agrees = None
        if ref is not None and c is not ref and c["status"] in PROVEN and p.role == "exact":
            agrees = c["status"] == ref["status"] and (
                optimum is None
                or math.isclose(
                    c["value"], optimum, rel_tol=0, abs_tol=PROOF_TOL * max(1.0, abs(optimum))
                )
            )
        out.append(
            {
                "group": rung.group,
                "rung": rung.label,
                "size": rung.size,
                "kind": rung.kind,
                "i": p.i,
                "seed": p.seed,
                "problem_kind": c.get("problem_kind"),
                "method": p.method.name if p.role == "exact" else p.method.label,
                "role": p.role,
                "status": c["status"],
                "value": c["value"],
                "bound": c["bound"],
                "runtime_s": c["runtime_s"],
                "reference": ref is c,
                "proven": proven,
                "infeasible": ref is not None and ref["status"] == "infeasible",
                "optimum": optimum,
                "best_bound": best,
                "gap_kind": rung.gap_kind,
                "gap": gap_of(c["value"], best, sense, rung.gap_kind),
                "agrees": agrees,
                "_stats": c.get("stats", {}),
            }
        )
    return out


def join(
    rungs: list[Rung], planned: list[_Planned], cached: list[dict[str, Any]], sense: str
) -> list[dict[str, Any]]:
    """Joined rows of every instance, in (rung, instance, exact then compared) order."""
    groups: dict[tuple[int, int], list[int]] = {}
    for k, p in enumerate(planned):
        groups.setdefault((p.rung, p.i), []).append(k)
    rows: list[dict[str, Any]] = []
    for (r, _), ks in groups.items():
        rows += join_instance(rungs[r], [planned[k] for k in ks], [cached[k] for k in ks], sense)
    return rows


def run_study(
    subject: str,
    family_name: str,
    size: str,
    seed: int,
    outdir: Path,
    *,
    methods: Sequence[str] | None = None,
    exact: str | None = None,
    count: int | None = None,
    rungs: list[Rung] | None = None,
) -> Study:
    """Run (resuming from the caches) one family at one size; see the module docstring.

    `methods`: the compared methods (default: the family's tag); `exact`: one exact method
    instead of each rung's; `count`: instances per rung instead of the ladder's; `rungs`: a
    ladder given by the caller instead of the registered one (a figure with its own sizes)."""
    entry = family(subject, family_name)
    meta = dict(entry.meta)
    ladder = rungs if rungs is not None else entry.obj(size)
    ladder = with_exact(subject, ladder, exact)
    specs = resolve_methods(subject, meta, methods)
    planned = plan_cells(subject, meta, ladder, specs, seed, count)
    ex = [p for p in planned if p.role == "exact"]
    other = [p for p in planned if p.role == "method"]
    name = f"gap {subject}/{family_name}"
    ex_rows, ex_new = _run(open_cache(outdir, subject, "optima"), ex, f"{name} exact")
    m_rows, m_new = _run(open_cache(outdir, subject, "methods"), other, f"{name} methods")
    by_cell = {id(p): c for p, c in zip(ex + other, ex_rows + m_rows, strict=True)}
    rows = join(ladder, planned, [by_cell[id(p)] for p in planned], meta["sense"])
    extras = meta.get("extras")
    for row in rows:
        stats = row.pop("_stats")
        if extras is not None:
            row.update(extras({**row, "stats": stats}))
    m_cells = len({tuple(p.key.values()) for p in other})
    counts = {
        "exact_cells": len(ex),
        "exact_solved": ex_new,
        "method_pairs": len(other),
        "method_cells": m_cells,
        "method_solved": m_new,
    }
    _say(
        f"{name} {size}: {len(ex)} exact solves ({ex_new} solved now, {len(ex) - ex_new} from the "
        f"cache); {len(other)} (instance, method) pairs of the other methods in {m_cells} cells "
        f"({m_new} computed now)"
    )
    return Study(
        subject, family_name, size, seed, meta["sense"], ladder, specs, rows, counts, entry.summary
    )


def merged(studies: Sequence[Study], family_name: str, summary: str = "") -> Study:
    """Several families' studies of one subject as one (a figure with several families: their
    groups become panels and table blocks of one file)."""
    first = studies[0]
    if any(st.subject != first.subject or st.sense != first.sense for st in studies):
        raise ValueError("merged: studies of one subject and sense only")
    counts: dict[str, int] = {}
    for st in studies:
        for k, v in st.counts.items():
            counts[k] = counts.get(k, 0) + v
    return Study(
        first.subject, family_name, first.size, first.seed, first.sense,
        [r for st in studies for r in st.rungs],
        list(dict.fromkeys(m for st in studies for m in st.methods)),
        [r for st in studies for r in st.rows], counts,
        summary or "; ".join(st.summary for st in studies),
    )  # fmt: skip
