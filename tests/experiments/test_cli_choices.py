"""Every choice list of the command line is read from the one place that defines it.

A registered thing (method, policy, workload) is a `RegistryChoice`; a plain enumeration is a
`LazyChoice` over its one defining constant. The few plain `click.Choice` lists left are named
in `PLAIN` with the reason; a new hand-kept list makes this test fail.
"""

from __future__ import annotations

from collections.abc import Iterator

import click

from schedlab.experiments.cli_registry import LazyChoice, OptionsCommand
from schedlab.experiments.registry import COMMANDS, SIZES

PLAIN = {
    ("figure", "size"): SIZES,  # the constant itself (light: no import to defer)
    ("reproduce", "size"): SIZES,
    ("verify", "size"): SIZES,
    ("report", "size"): SIZES,
}


def commands() -> Iterator[tuple[str, click.Command]]:
    """Every registered command and subcommand, with its path ("sojourn solve")."""

    def walk(path: str, cmd: click.Command) -> Iterator[tuple[str, click.Command]]:
        yield path, cmd
        if isinstance(cmd, click.Group):
            for name, sub in cmd.commands.items():
                yield from walk(f"{path} {name}", sub)

    for entry in COMMANDS.entries():
        yield from walk(entry.name, entry.obj)


def choice_params() -> dict[tuple[str, str], click.Choice]:
    out = {}
    for path, cmd in commands():
        option_flags = set(cmd.option_names()) if isinstance(cmd, OptionsCommand) else set()
        for p in cmd.params:
            if isinstance(p.type, click.Choice) and p.name not in option_flags:
                out[(path, str(p.name))] = p.type
    return out


def test_no_choice_list_is_kept_by_hand():
    params = choice_params()
    plain = {k: tuple(t.choices) for k, t in params.items() if not isinstance(t, LazyChoice)}
    assert plain == {k: tuple(v) for k, v in PLAIN.items()}
    assert sum(isinstance(t, LazyChoice) for t in params.values()) >= 15


def test_lazy_choices_are_their_defining_constants():
    from schedlab.experiments.slaq.simulator import SCALINGS
    from schedlab.experiments.slaq.workload_authors import PREDICTOR_WORKLOADS
    from schedlab.solvers.esg.problem import APP_KINDS
    from schedlab.solvers.lop.lpcut.options import ROUTES
    from schedlab.solvers.slaq.predict import MODELS
    from schedlab.solvers.slaq.problem import OBJECTIVES as SLAQ_OBJECTIVES
    from schedlab.solvers.sojourn.generate import FAMILIES
    from schedlab.solvers.sojourn.objectives import OBJECTIVES
    from schedlab.solvers.sojourn.outcomes import EVALUATIONS
    from schedlab.solvers.synergy.generate import GPU_MIXES

    params = choice_params()
    expect = {
        ("sojourn evaluate", "objective"): OBJECTIVES,
        ("sojourn solve", "objective"): OBJECTIVES,
        ("sojourn generate", "family"): FAMILIES,
        ("lop solve", "route"): ROUTES,
        ("sojourn evaluate", "how"): EVALUATIONS,
        ("synergy snapshot", "gpu_mix"): tuple(GPU_MIXES),
        ("slaq snapshot", "objective"): SLAQ_OBJECTIVES,
        ("slaq allocate", "objective"): SLAQ_OBJECTIVES,
        ("slaq predict", "model"): MODELS,
        ("slaq simulate", "scaling"): SCALINGS,
        ("slaq simulate", "predictor"): tuple(PREDICTOR_WORKLOADS),
        ("esg generate", "shape"): APP_KINDS,
    }
    for key, values in expect.items():
        assert tuple(params[key].choices) == tuple(values), key


def test_lazy_choice_reads_its_source_once_on_first_use():
    calls = []

    def source() -> tuple[str, ...]:
        calls.append(1)
        return ("x", "y")

    choice = LazyChoice(source)
    assert calls == []
    assert choice.convert("y", None, None) == "y"
    assert tuple(choice.choices) == ("x", "y") and calls == [1]
