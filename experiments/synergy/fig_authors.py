"""Studies `synergy-authors` and `synergy-authors-switches`: schedlab beside the authors' simulator.

Every reference number of the Synergy authors' simulator (`authors_reference.py`: the default
workload at 9 jobs/h, seed 42, jobs 4000-4999, and both 100-job traces) next to schedlab's
number for the same workload and policy, two ways:

- `synergy-authors` (in `make reproduce`): schedlab as it is (its own random stream at seed
  42, its own rules) and with `--as-authors` (the authors' job stream and every rule of their
  simulator, `fidelity.py`); writes results/synergy/synergy-authors.csv, one row per
  reference number (reference, schedlab, gap %, as-authors, gap %, within 3%);
- `synergy-authors-switches` (outside `make reproduce`: 14 simulations per reference point):
  the gap with each switch alone (the stream and each rule), all together, and all but one;
  writes synergy-authors-switches.csv (gap % per variant).

Size "small" (for the quick reproduction) takes the two traces and the README's reference point
(`SMALL_POINTS`: the same cells as at full, so the same numbers); "tiny" the traces only; "full"
every case.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from schedlab.experiments.ladder import check
from schedlab.experiments.registry import register_figure
from schedlab.experiments.store import RowStore, results_dir, write_csv
from schedlab.experiments.synergy.authors_reference import CASES, UTIL_HOURS, references
from schedlab.experiments.synergy.cells import sim_cell
from schedlab.experiments.synergy.fidelity import CHOICES

NAME = "synergy-authors"
SWITCHES_NAME = "synergy-authors-switches"
METRICS = (
    "mean_jct_h",
    "p99_jct_h",
    "p999_jct_h",
    "median_jct_h",
    "makespan_h",
    "gpu_alloc",
    "cpu_alloc",
    "mem_alloc",
)
TOLERANCE = 0.03  # the target: every reference number within 3% with --as-authors
SWITCHES = ("stream",) + tuple(CHOICES)  # the stream and each rule of fidelity.py


def _synthetic(case: str) -> bool:
    return CASES[case]["workload"] in ("philly-derived", "multi-gpu")


def variant_key(case: str, alloc: str, on: tuple[str, ...]) -> dict[str, Any]:
    """The cell of one (case, allocator) with the named switches at the authors' rule."""
    key: dict[str, Any] = {**CASES[case], "alloc": alloc, "case": case}
    key["variant"] = "+".join(on) if on else "schedlab"
    key["switches"] = sorted(s for s in on if s != "stream")
    if _synthetic(case):
        key["stream"] = "authors" if "stream" in on else "numpy"
        key["util_h"] = list(UTIL_HOURS)
    return key


#: The synthetic reference points size small adds to the traces: the authors' README point
#: (FIFO + TUNE at 9 jobs/h, seed 42), one simulation per variant.
SMALL_POINTS = (("default-9jph-fifo", "tune"),)


def _points(size: str) -> list[tuple[str, str]]:
    """The (case, allocator) reference points computed at `size`."""
    pts = sorted(references())
    if check(size) != "full":
        extra = SMALL_POINTS if size == "small" else ()
        pts = [p for p in pts if not _synthetic(p[0]) or p in extra]
    return pts


def _variants(case: str, detail: bool) -> list[tuple[str, ...]]:
    names = SWITCHES if _synthetic(case) else tuple(CHOICES)
    out: list[tuple[str, ...]] = [(), names]
    if detail:
        out += [(s,) for s in names]
        out += [tuple(x for x in names if x != s) for s in names]
    return out


def compute(size: str, outdir: Path, detail: bool) -> list[dict[str, Any]]:
    """Every variant cell of every reference point (journaled, resumable)."""
    stem = SWITCHES_NAME if detail else NAME
    keys = [
        variant_key(case, alloc, on)
        for case, alloc in _points(size)
        for on in _variants(case, detail)
    ]
    store = RowStore(
        results_dir(outdir, "synergy") / f"{stem}-{size}.jsonl",
        ["case", "alloc", "variant"],
        config={"size": size, "detail": detail, "row_format": 1},
    )
    return store.run(keys, sim_cell, desc=stem)


def _gap(ours: Any, ref: float) -> float | None:
    if ours is None or ref == 0:
        return None
    return 100.0 * (float(ours) - ref) / ref


def side_by_side(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per reference number: reference, schedlab, as-authors, gaps in %."""
    refs = references()
    by = {(r["case"], r["alloc"], r["variant"]): r for r in rows}
    out = []
    for (case, alloc), ref in sorted(refs.items()):
        every = "+".join(SWITCHES if _synthetic(case) else CHOICES)
        ours, auth = by.get((case, alloc, "schedlab")), by.get((case, alloc, every))
        if ours is None or auth is None:
            continue
        for metric in METRICS:
            if metric not in ref:
                continue
            g0, g1 = _gap(ours.get(metric), ref[metric]), _gap(auth.get(metric), ref[metric])
            out.append(
                {
                    "case": case,
                    "policy": CASES[case]["policy"],
                    "alloc": alloc,
                    "metric": metric,
                    "authors_simulator": ref[metric],
                    "schedlab": ours.get(metric),
                    "schedlab_gap_pct": g0,
                    "as_authors": auth.get(metric),
                    "as_authors_gap_pct": g1,
                    "as_authors_within_3pct": g1 is not None and abs(g1) <= 100 * TOLERANCE,
                }
            )
    return out


def switch_table(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Gap % (schedlab minus the authors' simulator) of every variant, per reference number."""
    refs = references()
    by: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
    for r in rows:
        by.setdefault((r["case"], r["alloc"]), {})[r["variant"]] = r
    out = []
    for (case, alloc), variants in sorted(by.items()):
        ref = refs[(case, alloc)]
        for metric in METRICS:
            if metric not in ref:
                continue
            row: dict[str, Any] = {"case": case, "alloc": alloc, "metric": metric}
            row["authors_simulator"] = ref[metric]
            for name, r in variants.items():
                row[f"gap_pct[{name}]"] = _gap(r.get(metric), ref[metric])
            out.append(row)
    return out


def ratio_table(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per case and metric: proportional / TUNE and TUNE / OPT, for the authors' simulator,
    schedlab and schedlab --as-authors (the [summary] facts are such ratios)."""
    refs = references()
    out = []
    for case in CASES:
        every = "+".join(SWITCHES if _synthetic(case) else CHOICES)
        by = {(r["alloc"], r["variant"]): r for r in rows if r["case"] == case}
        for metric in ("mean_jct_h", "makespan_h", "cpu_alloc"):
            for num, den in (("proportional", "tune"), ("tune", "opt"), ("tune", "proportional")):
                ref_n, ref_d = refs.get((case, num), {}), refs.get((case, den), {})
                row: dict[str, Any] = {"case": case, "metric": metric, "ratio": f"{num}/{den}"}
                if metric in ref_n and metric in ref_d:
                    row["authors_simulator"] = ref_n[metric] / ref_d[metric]
                for col, variant in (("schedlab", "schedlab"), ("as_authors", every)):
                    a, b = by.get((num, variant)), by.get((den, variant))
                    if a and b and a.get(metric) and b.get(metric):
                        row[col] = a[metric] / b[metric]
                if len(row) > 3:
                    out.append(row)
    return out


def _fields(rows: list[dict[str, Any]]) -> list[str]:
    fields: list[str] = []
    for r in rows:
        fields += [k for k in r if k not in fields]
    return fields


def make(size: str, seed: int, outdir: Path) -> list[Path]:
    """The side-by-side table (the reference points fix their own seed, 42)."""
    rows = compute(size, outdir, detail=False)
    d = results_dir(outdir, "synergy")
    ratios = ratio_table(rows)
    return [
        write_csv(d / f"{NAME}.csv", side_by_side(rows)),
        write_csv(d / f"{NAME}_ratios.csv", ratios, _fields(ratios)),
    ]


def make_switches(size: str, seed: int, outdir: Path) -> list[Path]:
    """The per-switch table (every variant of every reference point)."""
    rows = compute(size, outdir, detail=True)
    table = switch_table(rows)
    path = results_dir(outdir, "synergy") / f"{SWITCHES_NAME}.csv"
    return [write_csv(path, table, _fields(table))]


@register_figure(
    NAME,
    summary="every reference number of the authors' simulator beside schedlab and --as-authors",
    in_reproduce=True,
)
def figure(size: str, seed: int, outdir: Path) -> list[Path]:
    return make(size, seed, outdir)


@register_figure(
    SWITCHES_NAME,
    summary="gap to the authors' simulator with each deviation switched alone, all, all but one",
    in_reproduce=False,
)
def figure_switches(size: str, seed: int, outdir: Path) -> list[Path]:
    return make_switches(size, seed, outdir)


MOTIVATION = "synergy-motivation"


def motivation_cell(key: dict[str, Any]) -> dict[str, Any]:
    """One model's speedup over its proportional-share throughput at each CPUs-per-GPU value:
    at 62.5 GB per GPU and at the best memory on the grid (the shipped profiles)."""
    from schedlab.solvers.synergy.profiles import named_profiles

    pr = named_profiles(key.get("profile_set", "default"))
    k = pr.index(key["model"])
    base = pr.tput(k, 3.0, 62.5)
    out: dict[str, Any] = {}
    for c in pr.cpu_values:
        out[f"x_at_{c:g}cpu_62.5gb"] = pr.tput(k, c, 62.5) / base
        out[f"x_at_{c:g}cpu_best_mem"] = max(pr.tput(k, c, m) for m in pr.mem_values) / base
    return out


def make_motivation(size: str, seed: int, outdir: Path) -> list[Path]:
    """Speedup vs CPUs per GPU of every shipped model (the motivation numbers)."""
    from schedlab.solvers.synergy.profiles import default_profiles

    keys = [{"model": n} for n in default_profiles().names]
    store = RowStore(
        results_dir(outdir, "synergy") / f"{MOTIVATION}.jsonl",
        ["model"],
        config={"row_format": 1},
    )
    rows = store.run(keys, motivation_cell, desc=MOTIVATION)
    return [write_csv(results_dir(outdir, "synergy") / f"{MOTIVATION}.csv", rows)]


@register_figure(
    MOTIVATION,
    summary="speedup of each profiled model vs CPUs per GPU (the motivation numbers)",
    in_reproduce=True,
)
def figure_motivation(size: str, seed: int, outdir: Path) -> list[Path]:
    return make_motivation(size, seed, outdir)
