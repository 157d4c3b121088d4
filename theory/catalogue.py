"""The claims catalogues: one TOML file per paper, `theory/<subject>/claims.toml`, as data.

`load_catalogue(path)` reads and validates one file (every problem reported at once, each naming
the file, the claim and the field); `catalogues()` reads every subject's. The schema, with an
example, is docs/claims.md; `schedlab.theory.reproduction.decide` turns a claim row and our
number into a verdict, and `schedlab report` renders them. Subject-free: it reads files, it
imports no subject.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from schedlab.solvers.errors import InvalidInput

SCHEMA = 1
FILE_NAME = "claims.toml"
KINDS = ("paper", "derived", "property")
SOURCE_KINDS = ("abstract", "short paper", "authors' code", "authors' data", "summary")
CHECK = ("yes", "no", "unknown")
CHECK_ITEMS = ("workload", "metric", "baseline", "scale")
SETUP_ITEMS = ("workload", "baseline", "scale")
SHAPES = ("point", "max", "min", "range")
BETTER = ("higher", "lower")
NOT_STATED = "not stated in the sources read"


@dataclass(frozen=True)
class Source:
    kind: str
    what: str
    where: str = ""
    commit: str = ""


@dataclass(frozen=True)
class Paper:
    title: str
    citation: str
    status: str
    read: tuple[Source, ...]
    not_read: tuple[str, ...]
    status_note: str = ""


@dataclass(frozen=True)
class FigureRef:
    paper: str
    shows: str
    ours: str = ""
    note: str = ""


@dataclass(frozen=True)
class Number:
    """A paper's or the authors' code's number: a value, or a range [low, high]."""

    unit: str = ""
    source: str = ""
    value: float | None = None
    low: float | None = None
    high: float | None = None
    shape: str = "point"

    @property
    def band(self) -> tuple[float, float]:
        """[low, high] for a range, [value, value] otherwise."""
        if self.shape == "range":
            assert self.low is not None and self.high is not None
            return self.low, self.high
        assert self.value is not None
        return self.value, self.value


@dataclass(frozen=True)
class Ours:
    """Where our number is read: a result file's rows, or a registered verify claim."""

    file: str = ""
    where: dict[str, Any] = field(default_factory=dict)
    column: str = ""
    ci: tuple[str, ...] = ()  # [low column, high column] of the 95% interval
    ci_half: str = ""  # or: a column with the interval's half-width
    seeds: str | int | None = None
    sweep: str = ""
    study: str = ""
    claim: str = ""
    none: str = ""  # why no number of ours exists


@dataclass(frozen=True)
class Tolerance:
    rel: float | None = None
    abs: float | None = None

    def width(self, reference: float) -> float:
        """The half-width of the band around `reference` that counts as a match."""
        if self.abs is not None:
            return self.abs
        return abs(reference) * (self.rel or 0.0)


@dataclass(frozen=True)
class PaperPoint:
    """The point of ours that stands for the paper's setting, named before any result is read:
    `at` a point's label (`sweep=value`), "max"/"min" (the same statistic as an "up to"/"at
    least"), or "" (the row's only point), with `why` in one line; or `none`, why the sources
    state no setting (the row is then not comparable, whatever our numbers)."""

    at: str = ""
    why: str = ""
    none: str = ""


@dataclass(frozen=True)
class Effect:
    """A claim of improvement: which side is better and the value meaning "no improvement"
    (0 for a gain in percent, 1 for a ratio). Its tolerance band must stay on the better side."""

    better: str = ""
    no_effect: float | None = None


@dataclass(frozen=True)
class Claim:
    subject: str
    id: str
    kind: str
    locator: str
    statement: str
    metric: str
    primary: str
    paper_setup: dict[str, str]
    like_for_like: dict[str, str]
    ours: Ours
    alternatives: tuple[str, ...] = ()
    quote: str = ""
    verify: str = ""
    withdrawn_theorem: bool = False
    deviations: tuple[str, ...] = ()
    paper_number: Number | None = None
    authors_number: Number | None = None
    tolerance: Tolerance = field(default_factory=Tolerance)
    sizes: tuple[str, ...] = ("small", "full")  # the sizes whose run computes our number
    sizes_why: str = ""  # why the sizes left out do not (e.g. its cost): a missing row's reason
    paper_point: PaperPoint = field(default_factory=PaperPoint)
    effect: Effect = field(default_factory=Effect)

    @property
    def key(self) -> str:
        return f"{self.subject}/{self.id}"

    @property
    def reference(self) -> tuple[str, Number] | None:
        """The number a verdict compares with: the paper's, else the authors' code's."""
        if self.paper_number is not None:
            return "paper", self.paper_number
        if self.authors_number is not None:
            return "authors' code", self.authors_number
        return None


@dataclass(frozen=True)
class Catalogue:
    subject: str
    path: Path
    paper: Paper
    figures: tuple[FigureRef, ...]
    claims: tuple[Claim, ...]


# ---- validation -----------------------------------------------------------------------------
class _Problems:
    """Collects every problem of one file, each with where it is."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.items: list[str] = []

    def add(self, where: str, text: str) -> None:
        self.items.append(f"{where}: {text}")

    def keys(self, where: str, table: Any, allowed: set[str], required: set[str]) -> dict:
        if not isinstance(table, dict):
            self.add(where, f"must be a table, got {type(table).__name__}")
            return {}
        for k in sorted(set(table) - allowed):
            self.add(where, f"unknown key {k!r}; known: {', '.join(sorted(allowed))}")
        for k in sorted(required - set(table)):
            self.add(where, f"missing required key {k!r}")
        return table

    def text(self, where: str, table: dict, key: str, default: str = "") -> str:
        v = table.get(key, default)
        if not isinstance(v, str):
            self.add(f"{where}.{key}", f"must be text, got {v!r}")
            return default
        return v

    def choice(self, where: str, value: Any, choices: tuple[str, ...]) -> str:
        if value not in choices:
            self.add(where, f"{value!r} is not one of: {', '.join(choices)}")
            return choices[0]
        return str(value)

    def raise_if_any(self) -> None:
        if self.items:
            lines = [f"{self.path}: {len(self.items)} problem(s) in the claims catalogue:"]
            raise InvalidInput("\n".join(lines + [f"  {x}" for x in self.items]))


def _texts(p: _Problems, where: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        p.add(where, "must be a list of texts")
        return ()
    return tuple(value)


def _number(p: _Problems, where: str, t: Any) -> Number | None:
    allowed = {"value", "low", "high", "unit", "shape", "source"}
    t = p.keys(where, t, allowed, set())
    if not t:
        return None
    shape = p.choice(f"{where}.shape", t.get("shape", "point"), SHAPES)
    nums = {}
    for k in ("value", "low", "high"):
        v = t.get(k)
        if v is not None and (isinstance(v, bool) or not isinstance(v, int | float)):
            p.add(f"{where}.{k}", f"must be a number, got {v!r}")
            v = None
        nums[k] = None if v is None else float(v)
    if shape == "range" and (nums["low"] is None or nums["high"] is None):
        p.add(where, "shape 'range' needs low and high")
    if shape != "range" and nums["value"] is None:
        p.add(where, f"shape {shape!r} needs value (or shape = 'range' with low and high)")
    return Number(
        unit=p.text(where, t, "unit"), source=p.text(where, t, "source"), shape=shape, **nums
    )


def _ours(p: _Problems, where: str, t: Any) -> Ours:
    allowed = {
        "file",
        "where",
        "column",
        "ci",
        "ci_half",
        "seeds",
        "sweep",
        "study",
        "claim",
        "none",
    }
    t = p.keys(where, t, allowed, set())
    modes = [k for k in ("file", "claim", "none") if k in t]
    if len(modes) != 1:
        p.add(where, "give exactly one of file (with column), claim (a verify id) or none (why)")
    if "file" in t and not t.get("column"):
        p.add(where, "file needs column")
    if "file" in t and not t.get("study"):
        p.add(where, "file needs study (the registered figure/study that writes it)")
    ci = t.get("ci", [])
    if not isinstance(ci, list) or len(ci) not in (0, 2):
        p.add(f"{where}.ci", "must be [low_column, high_column]")
        ci = []
    if ci and t.get("ci_half"):
        p.add(where, "give ci or ci_half, not both")
    rows = t.get("where", {})
    if not isinstance(rows, dict):
        p.add(f"{where}.where", "must be a table of column = value")
        rows = {}
    seeds = t.get("seeds")
    if seeds is not None and not isinstance(seeds, str | int):
        p.add(f"{where}.seeds", "must be a column name or a number")
        seeds = None
    return Ours(
        file=p.text(where, t, "file"),
        where=dict(rows),
        column=p.text(where, t, "column"),
        ci=tuple(str(c) for c in ci),
        ci_half=p.text(where, t, "ci_half"),
        seeds=seeds,
        sweep=p.text(where, t, "sweep"),
        study=p.text(where, t, "study"),
        claim=str(t.get("claim", "")),
        none=p.text(where, t, "none"),
    )


def _tolerance(p: _Problems, where: str, t: Any) -> Tolerance:
    t = p.keys(where, t, {"rel", "abs"}, set())
    vals: dict[str, float] = {}
    for k in ("rel", "abs"):
        v = t.get(k)
        if v is None:
            continue
        if isinstance(v, bool) or not isinstance(v, int | float) or v < 0:
            p.add(f"{where}.{k}", f"must be a number >= 0, got {v!r}")
            continue
        vals[k] = float(v)
    if "rel" in vals and "abs" in vals:
        p.add(where, "give rel or abs, not both")
    return Tolerance(**vals)


def _paper_point(p: _Problems, where: str, t: Any, needed: bool) -> PaperPoint:
    """The named point; `needed` for a swept row with a reference number (its other points
    only feed the sensitivity strip, so one must be named or declared absent)."""
    if t is None:
        if needed:
            p.add(where, "a swept row with a reference number must name its point: "
                  "[claims.paper_point] at = 'sweep=value' (or 'max'/'min') with why = '...', "
                  "or none = 'why the sources state no setting'")  # fmt: skip
        return PaperPoint()
    t = p.keys(where, t, {"at", "why", "none"}, set())
    if ("none" in t) == ("why" in t):
        p.add(where, "give why (with at) or none, not both")
    if "none" in t and "at" in t:
        p.add(where, "none names no point: drop at")
    return PaperPoint(
        at=p.text(where, t, "at"), why=p.text(where, t, "why"), none=p.text(where, t, "none")
    )


def _effect(p: _Problems, where: str, t: Any, claim: Claim) -> Effect:
    """The claim's direction; its reference band must not reach the no-effect value, so an
    improvement claim is never matched by no improvement or the opposite."""
    if t is None:
        return Effect()
    t = p.keys(where, t, {"better", "no_effect"}, {"better", "no_effect"})
    better = p.choice(f"{where}.better", t.get("better"), BETTER)
    v = t.get("no_effect")
    if isinstance(v, bool) or not isinstance(v, int | float):
        p.add(f"{where}.no_effect", f"must be a number, got {v!r}")
        return Effect(better=better)
    effect = Effect(better=better, no_effect=float(v))
    for label, number in (("paper", claim.paper_number), ("authors", claim.authors_number)):
        if number is None or (number.value is None and number.low is None):
            continue
        lo, hi = number.band
        lo, hi = lo - claim.tolerance.width(lo), hi + claim.tolerance.width(hi)
        if (better == "higher" and lo <= v) or (better == "lower" and hi >= v):
            p.add(where, f"the {label} number's tolerance band [{lo:g}, {hi:g}] reaches "
                  f"no_effect = {v:g}: narrow the tolerance")  # fmt: skip
    return effect


CLAIM_KEYS = {
    "id",
    "kind",
    "locator",
    "statement",
    "quote",
    "metric",
    "primary",
    "alternatives",
    "verify",
    "withdrawn_theorem",
    "deviations",
    "paper_setup",
    "paper_number",
    "authors_number",
    "ours",
    "tolerance",
    "like_for_like",
    "sizes",
    "sizes_why",
    "paper_point",
    "effect",
}
CLAIM_REQUIRED = {
    "id",
    "kind",
    "locator",
    "statement",
    "metric",
    "primary",
    "paper_setup",
    "like_for_like",
    "ours",
}


def _claim(p: _Problems, subject: str, i: int, t: Any) -> Claim | None:
    where = f"claims[{i}]" + (f" ({t.get('id')})" if isinstance(t, dict) and "id" in t else "")
    t = p.keys(where, t, CLAIM_KEYS, CLAIM_REQUIRED)
    if not t:
        return None
    setup = p.keys(
        f"{where}.paper_setup", t.get("paper_setup", {}), set(SETUP_ITEMS), set(SETUP_ITEMS)
    )
    check = p.keys(
        f"{where}.like_for_like", t.get("like_for_like", {}), set(CHECK_ITEMS), set(CHECK_ITEMS)
    )
    for k, v in check.items():
        p.choice(f"{where}.like_for_like.{k}", v, CHECK)
    wt = t.get("withdrawn_theorem", False)
    if not isinstance(wt, bool):
        p.add(f"{where}.withdrawn_theorem", "must be true or false")
    claim = Claim(
        subject=subject,
        id=p.text(where, t, "id"),
        kind=p.choice(f"{where}.kind", t.get("kind"), KINDS),
        locator=p.text(where, t, "locator"),
        statement=p.text(where, t, "statement"),
        quote=p.text(where, t, "quote"),
        metric=p.text(where, t, "metric"),
        primary=p.text(where, t, "primary"),
        alternatives=_texts(p, f"{where}.alternatives", t.get("alternatives", [])),
        verify=str(t.get("verify", "")),
        withdrawn_theorem=bool(wt),
        deviations=_texts(p, f"{where}.deviations", t.get("deviations", [])),
        paper_setup={k: str(v) for k, v in setup.items()},
        like_for_like={k: str(v) for k, v in check.items()},
        paper_number=_number(p, f"{where}.paper_number", t["paper_number"])
        if "paper_number" in t
        else None,
        authors_number=_number(p, f"{where}.authors_number", t["authors_number"])
        if "authors_number" in t
        else None,
        ours=_ours(p, f"{where}.ours", t.get("ours", {})),
        tolerance=_tolerance(p, f"{where}.tolerance", t.get("tolerance", {})),
        sizes=_sizes(p, f"{where}.sizes", t.get("sizes", ["small", "full"])),
        sizes_why=p.text(where, t, "sizes_why"),
    )
    _check_sizes_why(p, where, claim)
    swept = bool(claim.ours.file and claim.ours.sweep and claim.reference is not None)
    return replace(
        claim,
        paper_point=_paper_point(p, f"{where}.paper_point", t.get("paper_point"), swept),
        effect=_effect(p, f"{where}.effect", t.get("effect"), claim),
    )


def _check_sizes_why(p: _Problems, where: str, claim: Claim) -> None:
    """A row left out of a size says why (the report gives it as the missing row's reason);
    a row of every size has nothing to explain."""
    left_out = {"small", "full"} - set(claim.sizes)
    if left_out and not claim.sizes_why.strip():
        p.add(f"{where}.sizes_why", f"say why size {' and '.join(sorted(left_out))} does not "
              "compute this row (e.g. its cost), or compute it there")  # fmt: skip
    if not left_out and claim.sizes_why:
        p.add(f"{where}.sizes_why", "the row is computed at every size: remove sizes_why")


def _sizes(p: _Problems, where: str, value: Any) -> tuple[str, ...]:
    sizes = _texts(p, where, value)
    for s in sizes:
        p.choice(where, s, ("small", "full"))
    if not sizes:
        p.add(where, "name at least one size (small, full)")
    return sizes


def _paper(p: _Problems, t: Any) -> Paper:
    t = p.keys(
        "paper",
        t,
        {"title", "citation", "status", "status_note", "read", "not_read"},
        {"title", "citation", "status", "read", "not_read"},
    )
    read = []
    for i, s in enumerate(t.get("read", []) if isinstance(t.get("read"), list) else []):
        s = p.keys(f"paper.read[{i}]", s, {"kind", "what", "where", "commit"}, {"kind", "what"})
        if s:
            read.append(
                Source(
                    kind=p.choice(f"paper.read[{i}].kind", s.get("kind"), SOURCE_KINDS),
                    what=p.text(f"paper.read[{i}]", s, "what"),
                    where=p.text(f"paper.read[{i}]", s, "where"),
                    commit=p.text(f"paper.read[{i}]", s, "commit"),
                )
            )
    if not read:
        p.add("paper.read", "list at least one source read ([[paper.read]])")
    return Paper(
        title=p.text("paper", t, "title"),
        citation=p.text("paper", t, "citation"),
        status=p.choice("paper.status", t.get("status", "published"), ("published", "withdrawn")),
        status_note=p.text("paper", t, "status_note"),
        read=tuple(read),
        not_read=_texts(p, "paper.not_read", t.get("not_read", [])),
    )


def load_catalogue(path: Path) -> Catalogue:
    """Read and validate one catalogue; InvalidInput lists every problem of the file."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise InvalidInput(f"{path}: cannot read the claims catalogue: {exc}") from None
    p = _Problems(path)
    top = p.keys(
        "(top)",
        data,
        {"schema", "subject", "paper", "figures", "claims"},
        {"schema", "subject", "paper", "claims"},
    )
    if top.get("schema") != SCHEMA:
        p.add("schema", f"must be {SCHEMA} (got {top.get('schema')!r})")
    subject = p.text("(top)", top, "subject")
    paper = _paper(p, top.get("paper", {}))
    figs = []
    for i, f in enumerate(top.get("figures", [])):
        f = p.keys(f"figures[{i}]", f, {"paper", "shows", "ours", "note"}, {"paper", "shows"})
        if f:
            figs.append(FigureRef(**{k: str(v) for k, v in f.items()}))
    claims = [c for i, t in enumerate(top.get("claims", [])) if (c := _claim(p, subject, i, t))]
    seen: set[str] = set()
    for c in claims:
        if c.id in seen:
            p.add(f"claims ({c.id})", "id used twice")
        seen.add(c.id)
    p.raise_if_any()
    return Catalogue(subject, path, paper, tuple(figs), tuple(claims))


def catalogue_paths() -> dict[str, Path]:
    """subject -> its catalogue file, for every theory subject package that has one."""
    root = Path(__file__).parent
    return {p.parent.name: p for p in sorted(root.glob(f"*/{FILE_NAME}"))}


def catalogues() -> dict[str, Catalogue]:
    """Every subject's catalogue, validated (InvalidInput on the first file with problems)."""
    return {s: load_catalogue(p) for s, p in catalogue_paths().items()}
