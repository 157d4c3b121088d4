"""The one `solve(problem, method, ...)` of every subject, dispatching through `METHODS`.

A problem is any object with a class attribute `subject` (e.g. "sojourn", "synergy") and a
`kind` property (the objective or problem kind a method must accept, e.g. "B"). A method is
`solve_<name>(problem, *, deadline, seed, options) -> SolveResult`, registered where it is
defined with `@register_method(subject, name, exact=..., kinds=..., options=...)`. `solve` is
the door of time limits: it turns the user's seconds into one `validate.Deadline`, which the
method receives unchanged as its `deadline` parameter.

A subject may give some of its methods another form, named by a tag and run by one function
declared with `@method_form(subject, tag)` next to that form's protocol: sojourn's "index"
methods are key functions (jobs in ascending key order), Synergy's "fast" methods are round
allocator factories (the simulator's fast path). They register with `register_method` too.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, ClassVar, Protocol, TypeVar

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.options import NoOptions, parse_options
from schedlab.solvers.registry import Entry, Registry
from schedlab.solvers.result import SolveResult, Status
from schedlab.solvers.validate import Deadline, DeadlineExceeded, check_seed
from schedlab.solvers.validate import check_time_limit as _check_time_limit


class Problem(Protocol):
    """What `solve` needs of a problem: its subject and the kind a method must accept."""

    subject: ClassVar[str]

    @property
    def kind(self) -> str: ...


SolveFn = Callable[..., SolveResult[Any]]
F = TypeVar("F", bound=Callable[..., Any])
#: runner(entry, problem, *, deadline, seed, options) -> SolveResult: runs a method of a form
FormRunner = Callable[..., SolveResult[Any]]
R = TypeVar("R", bound=FormRunner)

#: Every solve method of every subject, scoped by subject; discovered in `schedlab.solvers`.
#: An entry's object is a solve function, or an object of the form its tags name (`method_form`).
#: Discovery imports only the modules that name `register_method` or `method_form`, of the
#: subject's package alone for a lookup within one subject, so listing or picking a method loads
#: no other subject and no solver library that the chosen method does not use.
METHODS: Registry[Any] = Registry(
    "method",
    packages=("schedlab.solvers",),
    skip=("schedlab.solvers.kernels",),
    mentions=("register_method", "method_form"),
    scope_package="schedlab.solvers.{scope}",
)
_FORMS: dict[tuple[str, str], FormRunner] = {}


def register_method(
    subject: str,
    name: str,
    *,
    exact: bool,
    kinds: Collection[str] | None = None,
    options: type = NoOptions,
    tags: Sequence[str] = (),
    summary: str = "",
) -> Callable[[F], F]:
    """Register a solve method of `subject`; `kinds` None means every problem kind.

    Tags "exact" or "heuristic" are added from `exact`; figures select methods by tag. A tag
    declared by `method_form` says the decorated object has that form instead of being a solve
    function (e.g. sojourn "index": a key function).
    """
    all_tags = (*tags, "exact" if exact else "heuristic")

    def deco(func: F) -> F:
        METHODS.add(
            name,
            func,
            scope=subject,
            summary=summary,
            tags=all_tags,
            options=options,
            exact=exact,
            kinds=None if kinds is None else frozenset(kinds),
        )
        return func

    return deco


def method_form(subject: str, tag: str) -> Callable[[R], R]:
    """Decorator: declare the runner of the `subject` methods tagged `tag`.

    `runner(entry, problem, *, deadline, seed, options) -> SolveResult` solves `problem` with
    the registered object `entry.obj` (a key function, an allocator factory, ...)."""

    def deco(runner: R) -> R:
        if (subject, tag) in _FORMS:
            raise ValueError(f"method form {subject}/{tag!r} declared twice")
        _FORMS[(subject, tag)] = runner
        return runner

    return deco


def method_spec(subject: str, name: str) -> Entry[Any]:
    """The registered method `name` of `subject` (InvalidInput naming the choices if unknown)."""
    return METHODS.get(name, scope=subject)


def method_runner(spec: Entry[Any]) -> SolveFn:
    """What `solve` calls for `spec`: its object, or its form's runner bound to it."""
    forms = sorted(t for t in spec.tags if (spec.scope, t) in _FORMS)
    if len(forms) > 1:
        raise ValueError(f"method {spec.key} has two forms: {', '.join(forms)}")
    if not forms:
        fn: SolveFn = spec.obj
        return fn
    return functools.partial(_FORMS[(spec.scope, forms[0])], spec)


def check_time_limit(time_limit: float | None) -> None:
    """A time limit is None or seconds in (0, one week] (`validate.check_time_limit`)."""
    _check_time_limit(time_limit)


def solve(
    problem: Problem,
    method: str,
    *,
    time_limit: float | None = None,
    seed: int | None = None,
    options: Mapping[str, Any] | object | None = None,
) -> SolveResult[Any]:
    """Solve `problem` with the registered `method` of its subject.

    `options` is the method's options dataclass or a mapping of its fields; unknown or
    ill-typed options, a method that does not accept the problem's kind, or a bad time limit
    are `InvalidInput` naming the field.
    """
    check_time_limit(time_limit)
    check_seed(seed)
    spec = method_spec(problem.subject, method)
    kinds = spec.meta.get("kinds")
    if kinds is not None and problem.kind not in kinds:
        raise InvalidInput(
            f"method: {problem.subject} method {method!r} does not solve {problem.kind}; "
            f"it solves {', '.join(sorted(kinds))}"
        )
    opts = parse_options(spec.options or NoOptions, options, where=f"method {spec.key}")
    t0 = time.perf_counter()
    deadline = Deadline.after(time_limit)  # the one conversion of the user's seconds
    try:
        result: SolveResult[Any] = method_runner(spec)(
            problem, deadline=deadline, seed=seed, options=opts
        )
    except DeadlineExceeded:  # the limit passed while building: no solution, said so
        runtime = time.perf_counter() - t0
        return SolveResult(
            Status.TIMEOUT, None, None, None, method, runtime, {"stopped_while_building": True}
        )
    return result
