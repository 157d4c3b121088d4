"""Help texts and checks agree: every numeric flag of every verb has one documented range, read
here from the flag's own type (the one place `--help` and the check both read), and every
numeric option of every registered method, policy and workload declares its range."""

from __future__ import annotations

import math
from collections.abc import Iterator

import click
import pytest
from click.testing import CliRunner

from schedlab.experiments.cli import cli
from schedlab.experiments.cliflags import BoundedInt, FiniteFloat
from schedlab.experiments.registry import POLICIES, WORKLOADS
from schedlab.solvers.options import INT_RANGE, option_fields
from schedlab.solvers.solve import METHODS
from tests.door.conftest import CASES
from tests.door.contract import check
from tests.door.test_flags import CASES as FLAG_CASES

NUMERIC = (click.types.IntParamType, click.types.FloatParamType, BoundedInt, FiniteFloat)


def commands(group: click.Group = cli, path: tuple[str, ...] = ()) -> Iterator[tuple]:
    """(path, command) of every leaf command under `group`."""
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        cmd = group.get_command(ctx, name)
        assert cmd is not None
        if isinstance(cmd, click.Group):
            yield from commands(cmd, (*path, name))
        elif not getattr(cmd, "alias_of", None):  # an alias is the same command
            yield (*path, name), cmd


def numeric_params(cmd: click.Command) -> list[click.Parameter]:
    return [p for p in cmd.get_params(click.Context(cmd)) if isinstance(p.type, NUMERIC)]


ALL = [(path, p.opts[0]) for path, cmd in commands() for p in numeric_params(cmd)]


def _outside(t: BoundedInt | FiniteFloat) -> list[float]:
    """Values just outside the type's range (none past +-1e308 for floats)."""
    if isinstance(t, BoundedInt):
        return [t.lo - 1, t.hi + 1]
    out = [t.lo if t.lo_open else math.nextafter(t.lo, -math.inf)]
    if t.hi < 1.7e308:
        out.append(math.nextafter(t.hi, math.inf))
    return out


def _inside(t: BoundedInt | FiniteFloat) -> list[float]:
    if isinstance(t, BoundedInt):
        return [t.lo, t.hi]
    return [math.nextafter(t.lo, math.inf) if t.lo_open else t.lo, t.hi]


@pytest.mark.parametrize(("path", "flag"), ALL, ids=[f"{' '.join(p)} {f}" for p, f in ALL])
def test_help_shows_the_range_the_check_applies(path, flag):
    """The range in `--help` is the type's metavar; values at its ends pass, values just
    beyond them are refused (click: exit 2 naming the flag); the default lies inside."""
    cmd = dict(commands())[path]
    (param,) = [p for p in numeric_params(cmd) if p.opts[0] == flag]
    t = param.type
    assert isinstance(t, BoundedInt | FiniteFloat), f"{flag}: {type(t).__name__} has no range"
    text = " ".join(CliRunner().invoke(cli, [*path, "--help"]).stdout.split())
    metavar = t.get_metavar(param, click.Context(cmd))
    assert f"{flag} {metavar}" in text, f"{' '.join(path)} --help does not show {metavar}"
    for v in _inside(t):
        t.convert(v, param, None)
        t.convert(repr(v) if isinstance(v, float) else str(v), param, None)
    for v in _outside(t):
        with pytest.raises(click.BadParameter):
            t.convert(repr(v) if isinstance(v, float) else str(v), param, None)
    if isinstance(param.default, int | float | str):  # not None, nor click's UNSET
        t.convert(param.default, param, None)
    CASES["ranges: numeric flags"] += 1


SLAQ_ESG = [(p, f) for p, f in ALL if p[0] in ("slaq", "esg")]


def test_every_slaq_and_esg_numeric_flag_is_fuzzed():
    """test_flags.py runs every numeric flag of every SLAQ and ESG verb under hostile text."""
    fuzzed = {(tuple(c.split()[:2]), f) for c, f, _ in FLAG_CASES}
    missing = [f"{' '.join(p)} {f}" for p, f in SLAQ_ESG if (p, f) not in fuzzed]
    assert not missing, f"flags without hostile-text cases in test_flags.CASES: {missing}"


def test_every_numeric_option_declares_its_range():
    """Method, policy and workload options: a range in the field's metadata or a named range
    (no int64 fallback, no unbounded float), so `--help` documents what the check accepts."""
    bare = []
    for reg in (METHODS, POLICIES, WORKLOADS):
        for e in reg.entries():
            if not getattr(e.obj, "__module__", "").startswith("schedlab."):
                continue  # a test's or a plugin's toy entry
            for f in option_fields(e.options) if e.options else []:
                if f.base in (int, float) and f.range in (None, INT_RANGE):
                    bare.append(f"{e.scope}/{e.name}: {f.name}")
    assert not bare, bare


# ---- end to end at the documented ends: what the help admits, the verb accepts ----------
@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (["esg", "generate", "--stages", "{hi}", "--configs", "5"], "--stages"),
        (["esg", "generate", "--stages", "2", "--configs", "{hi}"], "--configs"),
        (["slaq", "snapshot", "--jobs", "3", "--cores", "{hi}", "--seed", "1"], "--cores"),
        (["slaq", "predict", "logreg", "--ahead", "{hi}", "--json"], "--ahead"),
    ],
)
def test_the_upper_end_is_accepted_and_one_more_refused(args, flag):
    """The issue's case: `esg generate --configs 1500` was in the help's range and refused by
    the generator (at most 960); now both read `solvers/esg/limits.py`."""
    path = tuple(a for a in args[:2])
    cmd = dict(commands())[path]
    (param,) = [p for p in numeric_params(cmd) if p.opts[0] == flag]
    hi = param.type.hi  # type: ignore[attr-defined]
    at = [a.replace("{hi}", str(hi)) for a in args]
    assert check(f"ranges: {' '.join(path)} at the upper end", at, [flag]) == 0
    past = [a.replace("{hi}", str(hi + 1)) for a in args]
    assert check(f"ranges: {' '.join(path)} at the upper end", past, [flag]) == 2


def test_esg_generate_grid_matches_the_declared_limit():
    from schedlab.solvers.esg.generate import largest_grid
    from schedlab.solvers.esg.limits import MAX_GENERATED_CONFIGS

    assert largest_grid() == MAX_GENERATED_CONFIGS
