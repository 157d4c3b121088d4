"""What the report shows, gathered from a results folder and the claims catalogues.

`collect(results, size=None)` reads every catalogue, each claim row's number from the result
file and row the catalogue names (or the `verify` verdict file), the study manifests
(`results/manifests/`: resources and the code version each result was computed at) and the
run record, and returns one `ReportData`. A claim whose result is absent is `missing`, never a
number from elsewhere; a row computed at another code version than the current one is marked
stale, with the command that regenerates it. Every file is read through `load.ResultsFolder`:
one the report cannot use is skipped and listed (`ReportData.skipped`), never a crash.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from schedlab.experiments.report.environment import environment
from schedlab.experiments.report.load import ResultsFolder, load_folder
from schedlab.experiments.report.row import ClaimRow
from schedlab.solvers.errors import InvalidInput
from schedlab.theory.catalogue import Catalogue, Claim, Number, catalogues
from schedlab.theory.reproduction import Decision, Estimate, band, decide


@dataclass
class ReportData:
    results: Path
    size: str
    catalogues: dict[str, Catalogue]
    rows: list[ClaimRow]
    manifests: dict[str, dict[str, Any]]
    run: dict[str, Any]
    env: dict[str, Any]
    current_versions: dict[str, str]
    skipped: list[dict[str, str]] = field(default_factory=list)  # {path, reason} of each file


# ---- reading our numbers -------------------------------------------------------------------
def _float(x: Any) -> float:
    try:
        return float(x)
    except (TypeError, ValueError):
        return math.nan


def _same(cell: str, wanted: Any) -> bool:
    """A row filter: numbers compare as numbers (9 == 9.0), everything else as text."""
    a, b = _float(cell), _float(wanted)
    if math.isfinite(a) and math.isfinite(b):
        return a == b
    return str(cell) == str(wanted)


def read_points(
    results: Path, claim: Claim, folder: ResultsFolder | None = None
) -> tuple[list[Estimate], str]:
    """Our estimates for a file-backed claim row, and why there are none when so (`folder`:
    the reader of `results` that caches its tables and lists the unusable ones)."""
    o = claim.ours
    folder = folder or ResultsFolder(Path(results))
    table, why = folder.table(Path(results) / o.file)
    if table is None:
        return [], f"{o.file} {why}"
    rows = [r for r in table if all(_same(r.get(k, ""), v) for k, v in o.where.items())]
    if not rows:
        return [], f"no row of {o.file} matches {o.where}"
    if len(rows) > 1 and not o.sweep:
        return [], f"{len(rows)} rows of {o.file} match {o.where}: the catalogue must name one"
    if o.column not in rows[0]:
        return [], f"{o.file} has no column {o.column!r}"
    out = []
    for r in rows:
        seeds = o.seeds if isinstance(o.seeds, int) else _float(r.get(o.seeds or "", ""))
        value = _float(r.get(o.column))
        if o.ci:
            lo, hi = (_float(r.get(c, "")) for c in o.ci)
        elif o.ci_half:
            half = _float(r.get(o.ci_half, ""))
            lo, hi = value - half, value + half
        else:
            lo, hi = math.nan, math.nan
        out.append(
            Estimate(
                value=value,
                low=lo if math.isfinite(lo) else None,
                high=hi if math.isfinite(hi) else None,
                at=f"{o.sweep}={r.get(o.sweep)}" if o.sweep else None,
                seeds=int(seeds)
                if isinstance(seeds, int | float) and math.isfinite(seeds)
                else None,
            )
        )
    finite = [p for p in out if math.isfinite(p.value)]
    return finite, "" if finite else f"{o.file}: {o.column} is empty in the matching rows"


def verdict_file(results: Path, size: str, seed: int) -> Path:
    return Path(results) / "theory" / f"verify-{size}-s{seed}.json"


def read_verdicts(
    results: Path, size: str, seed: int, folder: ResultsFolder | None = None
) -> dict[str, dict[str, Any]]:
    """The `schedlab verify` verdicts of this size and seed, by claim id ({} if none or if the
    file is unusable: then `folder` lists it as skipped)."""
    folder = folder or ResultsFolder(Path(results))
    return folder.verdicts(verdict_file(results, size, seed))


# ---- formatting ----------------------------------------------------------------------------
def fmt(x: float | None, digits: int = 4) -> str:
    if x is None or not math.isfinite(x):
        return "-"
    return f"{x:.{digits}g}"


def number_text(n: Number | None) -> str:
    if n is None:
        return "not stated in the sources read"
    core = f"{fmt(n.low)}-{fmt(n.high)}" if n.shape == "range" else fmt(n.value)
    prefix = {"max": "up to ", "min": "at least "}.get(n.shape, "")
    return f"{prefix}{core}{(' ' + n.unit) if n.unit else ''}"


def ours_text(points: list[Estimate], unit: str, compared: Estimate | None = None) -> str:
    """Our points as the table shows them: all of up to four, else the first two and the last;
    the point the verdict compared (a "max" or "min" claim's extreme) first when there are
    several."""
    if not points:
        return "-"

    def one(p: Estimate) -> str:
        ci = f" [{fmt(p.low)}, {fmt(p.high)}]" if p.low is not None and p.high is not None else ""
        at = f" at {p.at}" if p.at not in (None, "") else ""
        n = f" ({p.seeds} seeds)" if p.seeds else ""
        return f"{fmt(p.value)}{ci}{at}{n}"

    shown = points if len(points) <= 4 else [*points[:2], None, points[-1]]
    text = "; ".join("..." if p is None else one(p) for p in shown)
    if compared is not None and len(points) > 1:
        return f"compared: {one(compared)}; of {len(points)} points: {text}"
    return text + (f" {unit}" if unit and len(points) == 1 else "")


# ---- rows ----------------------------------------------------------------------------------
def _study_of(claim: Claim) -> str:
    if claim.ours.claim:
        return f"claim-{claim.ours.claim}"
    return claim.ours.study


def of_size(manifest: dict[str, Any], size: str) -> bool:
    """Whether a study's manifest is of a run at `size` (a folder may also hold another size's
    run of a study outside `reproduce`, whose numbers and figures are not this report's)."""
    return manifest.get("size", size) == size


def check_text(verdict: dict[str, Any] | None) -> str:
    """A verify claim's result as the report shows it: its verdict, instances and the check's
    own one-line summary (the worst case it found)."""
    if not verdict:
        return "-"
    text = f"check {verdict.get('verdict')}"
    if verdict.get("instances"):
        text += f" on {verdict['instances']:,} instances"
    summary = verdict.get("summary")
    return f"{text}: {summary}" if summary else text


def claim_row(
    claim: Claim,
    results: Path,
    verdicts: dict[str, dict[str, Any]],
    manifests: dict[str, dict[str, Any]],
    current: dict[str, str],
    size: str,
    folder: ResultsFolder | None = None,
) -> ClaimRow:
    """One catalogue claim, read against the results folder (through `folder`'s reader)."""
    points: list[Estimate] = []
    why = ""
    check = None
    evidence = claim.ours.file
    study = _study_of(claim)
    m = manifests.get(study)
    unwritten = _not_written(claim, study, m, results, size)
    if unwritten:
        why = unwritten
        if claim.ours.file and folder is not None and (Path(results) / claim.ours.file).exists():
            folder.skip(Path(results) / claim.ours.file, unwritten)
    elif claim.ours.claim:
        v = verdicts.get(claim.ours.claim)
        check = v.get("verdict") if v else None
        evidence = (
            ", ".join(v.get("files", []))
            if v and check == "fails"
            else (f"theory/verify-{size}-s*.json" if v else "")
        )
    elif claim.ours.file:
        points, why = read_points(results, claim, folder)
    d: Decision = decide(claim, points, check)
    if size not in claim.sizes and d.verdict == "missing":
        why = f"computed at size {' and '.join(claim.sizes)} only: {claim.sizes_why}"
    cur = current.get(study, "")
    if m is None or (claim.ours.file and not points) or (claim.ours.claim and check is None):
        fresh = "missing"
    else:
        fresh = "fresh" if m.get("code_version") == cur and m.get("status") == "ok" else "stale"
    unit = (claim.reference[1].unit if claim.reference else "") or ""
    return ClaimRow(
        subject=claim.subject,
        claim_id=claim.id,
        kind=claim.kind,
        locator=claim.locator,
        statement=claim.statement,
        metric=claim.metric,
        primary=claim.primary,
        alternatives=list(claim.alternatives),
        quote=claim.quote,
        paper_number=number_text(claim.paper_number),
        authors_number=number_text(claim.authors_number) if claim.authors_number else "-",
        reference=claim.reference[0] if claim.reference else "none",
        ours=check_text(verdicts.get(claim.ours.claim))
        if check
        else (ours_text(points, unit, d.compared) if points else "-"),
        ours_points=[asdict(p) for p in points],
        like_for_like=dict(claim.like_for_like),
        deviations=list(claim.deviations),
        withdrawn_theorem=claim.withdrawn_theorem,
        verify=claim.verify or claim.ours.claim,
        verdict=d.verdict,
        reason=d.reason if d.verdict != "missing" or not why else why,
        evidence=evidence,
        study=study,
        command=_default_command(claim, claim.sizes[-1])
        if size not in claim.sizes
        else (m or {}).get("command", "") or _default_command(claim, size),
        freshness=fresh,
        code_version=(m or {}).get("code_version", ""),
        current_version=cur,
        wall_s=(m or {}).get("wall_s"),
        cpu_s=(m or {}).get("cpu_s"),
        peak_mb=(m or {}).get("peak_mb"),
        paper_setup=dict(claim.paper_setup),
        size=(m or {}).get("size", ""),
        reference_band=_band(claim),
        reading=d.reading,
        paper_point={k: v for k, v in asdict(claim.paper_point).items() if v},
        decided=asdict(d.compared) if d.compared is not None else None,
        band=_finite_band(d.band),
        replications=d.replications,
        source=claim.reference[1].source if claim.reference else "",
    )


def _not_written(
    claim: Claim, study: str, m: dict[str, Any] | None, results: Path, size: str
) -> str:
    """Why the run did not write this row's number ("" when its study did): no manifest of the
    study among the run's, a run at another size, a failed study, or a result file the study's
    manifest does not list (left by another run or written by hand)."""
    if not study:
        return ""
    if m is None:
        return f"no study {study} in this run"
    if not of_size(m, size):
        return f"the results folder holds the size-{m['size']} run of {study}"
    if m.get("status") != "ok":
        return f"study {study} failed in this run"
    if claim.ours.file and not _lists(m, Path(results) / claim.ours.file):
        return f"{claim.ours.file} is not among the files study {study} wrote in this run"
    return ""


def _lists(m: dict[str, Any], path: Path) -> bool:
    """Whether manifest `m` lists `path` (as written, or by its place under the results
    folder, which may have been moved since)."""
    tail = path.parts[-2:]
    for f in m.get("files", []):
        if Path(f) == path or Path(f).resolve() == path.resolve() or Path(f).parts[-2:] == tail:
            return True
    return False


def _finite_band(b: tuple[float, float] | None) -> list[float | None] | None:
    """The decided band as JSON can hold it (an open side as None)."""
    if b is None:
        return None
    return [x if math.isfinite(x) else None for x in b]


def _band(claim: Claim) -> list[float] | None:
    """[centre, low, high] of the reference's tolerance band (None without a nonzero one)."""
    if claim.reference is None:
        return None
    number = claim.reference[1]
    lo, hi = number.band
    centre = (lo + hi) / 2
    b_lo, b_hi = band(number, claim)
    return None if centre == 0 else [centre, b_lo, b_hi]


def _default_command(claim: Claim, size: str) -> str:
    if claim.ours.claim:
        return f"schedlab verify {claim.ours.claim} --size {size}"
    if claim.ours.study:
        return f"schedlab figure {claim.ours.study} --size {size}"
    return ""


def current_versions(names: set[str]) -> dict[str, str]:
    """The code version each named study would be journaled under now."""
    from schedlab.experiments.codeversion import subject_of_module
    from schedlab.experiments.registry import figures
    from schedlab.experiments.studies import study_version
    from schedlab.theory.claims import claims

    figs, checks = figures(), claims()
    out = {}
    for name in names:
        if name.startswith("claim-") and name[6:] in checks:
            mod = checks[name[6:]].func.__module__
        elif name in figs:
            mod = figs[name].obj.__module__
        else:
            continue
        out[name] = study_version(subject_of_module(mod), (mod,))
    return out


def collect(
    results: Path, size: str | None = None, cats: dict[str, Catalogue] | None = None
) -> ReportData:
    """Everything the report shows, for the results folder `results` (`cats`: the catalogues,
    by default every subject's). InvalidInput when the folder holds no usable study manifest:
    nothing in it could be reported."""
    results = Path(results)
    cats = catalogues() if cats is None else cats
    folder = load_folder(results)
    if not folder.manifests:
        raise InvalidInput(nothing_usable(folder))
    run = folder.run
    size = size or run.get("size") or _latest_size(folder.manifests) or "small"
    seed = run.get("seed", 0)
    manifests = run_manifests(folder, size)
    verdicts = read_verdicts(results, size, seed, folder)
    names = {_study_of(c) for cat in cats.values() for c in cat.claims} | set(manifests)
    current = current_versions({n for n in names if n})
    rows = [
        claim_row(c, results, verdicts, manifests, current, size, folder)
        for cat in cats.values()
        for c in cat.claims
    ]
    env = environment(run)
    return ReportData(results, size, cats, rows, manifests, run, env, current, folder.skipped)


def registered_studies() -> set[str]:
    """Every study name a run can write: the registered figures, `claim-<id>` of each claim
    check, and the report itself."""
    from schedlab.experiments.registry import figures
    from schedlab.theory.claims import claims

    return set(figures()) | {f"claim-{cid}" for cid in claims()} | {"report"}


def run_manifests(folder: ResultsFolder, size: str) -> dict[str, dict[str, Any]]:
    """The manifests of the studies of the run the report shows: registered studies, and when
    the run record of this size names its studies, those only. Every other manifest, and each
    file it lists, is recorded as skipped with why (a study run by hand beside the run, an
    unregistered study): the report shows no number or figure of theirs."""
    registered = registered_studies()
    run = folder.run
    names = run.get("study_names") if run.get("size") == size else None
    out = {}
    for name, m in folder.manifests.items():
        if name not in registered:
            why = "not a registered study (`schedlab figure --list`)"
        elif names is not None and name not in names:
            command = run.get("command", "schedlab reproduce")
            why = f"not one of the studies of the run `{command}` (manifests/run.json)"
        else:
            out[name] = m
            continue
        folder.skip(folder.root / "manifests" / f"{name}.json", f"study {name} is {why}")
        for f in m.get("files", []):
            folder.skip(f, f"written by study {name}, which is {why}")
    return out


def nothing_usable(folder: ResultsFolder, shown: int = 5) -> str:
    """Why a results folder cannot be reported: no usable manifest, and the files skipped."""
    where = folder.root / "manifests"
    skipped = "; ".join(f"{Path(s['path']).name}: {s['reason']}" for s in folder.skipped[:shown])
    more = f" and {len(folder.skipped) - shown} more" if len(folder.skipped) > shown else ""
    return (
        f"--results: no usable study manifest under {where}"
        + (f" (skipped {skipped}{more})" if skipped else "")
        + "; run `schedlab reproduce` (or a study) into this folder first"
    )


def _latest_size(manifests: dict[str, dict[str, Any]]) -> str:
    latest = sorted(manifests.values(), key=lambda m: str(m.get("finished_at", "")))
    return str(latest[-1].get("size", "")) if latest else ""
