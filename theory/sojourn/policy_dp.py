"""Exact optimal policies over job states: checkpoint-preemptive, adaptive and fixed-order.

A job with sizes s_0 < ... < s_{k-1} (probabilities p_0..p_{k-1}; the last is success) is
*alive at level c* when it has received s_{c-1} units of service (0 for c = 0) and has not
ended, so X > s_{c-1}; serving it up to s_c ends it with probability p_c / sum_{l >= c} p_l
(cancelled for c < k-1, success for c = k-1) or leaves it alive at level c+1. It may be
preempted only at these levels (its checkpoints). A state is one code per job: c in [0, k)
alive at level c, or k + l when it ended at size s_l. The elapsed time and the number of
successes are functions of the state.

Objective A (sum of the successful completion times) is additive along a path. Objective B
= E[S / N] (S: sum of successful completion times, N: number of successes, 0 when N = 0) is
not, and a literal DP would carry (state, S). We use that the value is affine in S:

    V(state, S) = S * phi(state) + U(state),   phi(state) = E[1/N_final | state],

because N_final = successes so far + successes of the alive jobs, whose conditional success
probabilities do not depend on the policy (every job runs to completion; a policy only
chooses when outcomes are revealed). So the optimal action does not depend on S, and U obeys
a DP over states alone in which a success completing at time t adds t * phi(next state).
`literal_value_B` is the (state, S) DP used to check this reduction on tiny instances, and
`evaluate_policy_exact` re-evaluates any policy by enumerating every joint outcome.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.sojourn.problem import Instance

State = tuple[int, ...]
MODES = ("preemptive", "adaptive", "fixed")
KINDS = ("A", "B")
MAX_STATES = 2_000_000


@dataclass(frozen=True)
class _Job:
    sizes: tuple[float, ...]
    probs: tuple[float, ...]

    @property
    def k(self) -> int:
        return len(self.sizes)

    def age(self, c: int) -> float:
        return 0.0 if c == 0 else self.sizes[c - 1]

    def tail(self, c: int) -> float:
        return float(sum(self.probs[c:]))

    def end_prob(self, c: int) -> float:
        t = self.tail(c)
        return 1.0 if t <= 0 else min(1.0, self.probs[c] / t)

    def success_prob(self, c: int) -> float:
        t = self.tail(c)
        return 0.0 if t <= 0 else self.probs[-1] / t


@dataclass(frozen=True)
class PolicyResult:
    """Optimal value of one policy class, with its policy (state -> job) and state count."""

    value: float
    mode: str
    kind: str
    policy: dict[State, int]
    states: int


class _Model:
    """Shared state arithmetic for one instance."""

    def __init__(self, inst: Instance, kind: str) -> None:
        if kind not in KINDS:
            raise InvalidInput(f"objective: policy DP supports {KINDS} (got {kind!r})")
        self.jobs = [_Job(j.sizes, j.probs) for j in inst.jobs]
        self.n = inst.n
        self.kind = kind
        size = 1
        for j in self.jobs:
            size *= 2 * j.k
        if size > MAX_STATES:
            raise InvalidInput(
                f"instance: {size} job states exceed the policy-DP limit {MAX_STATES}; "
                "use fewer jobs or checkpoints (n <= 5, <= 3 checkpoints per job)"
            )

    def alive(self, s: State, i: int) -> bool:
        return s[i] < self.jobs[i].k

    def elapsed(self, s: State) -> float:
        t = 0.0
        for j, c in zip(self.jobs, s, strict=True):
            t += j.age(c) if c < j.k else j.sizes[c - j.k]
        return t

    def successes(self, s: State) -> int:
        return sum(1 for j, c in zip(self.jobs, s, strict=True) if c == 2 * j.k - 1)

    def inv_n(self, s: State) -> float:
        """E[1/N_final | s] (0 on N_final = 0): Poisson-binomial over the alive jobs."""
        return _inv_n(self.successes(s), self._alive_success_probs(s))

    def _alive_success_probs(self, s: State) -> tuple[float, ...]:
        return tuple(j.success_prob(c) for j, c in zip(self.jobs, s, strict=True) if c < j.k)

    def branches(self, s: State, i: int) -> list[tuple[float, State, float]]:
        """(probability, next state, cost added) of serving job i to its next level."""
        j, c = self.jobs[i], s[i]
        t = self.elapsed(s) + j.sizes[c] - j.age(c)
        q = j.end_prob(c)
        out: list[tuple[float, State, float]] = []
        if q > 0:
            nxt = s[:i] + (j.k + c,) + s[i + 1 :]
            cost = 0.0
            if c == j.k - 1:
                cost = t if self.kind == "A" else t * self.inv_n(nxt)
            out.append((q, nxt, cost))
        if q < 1 and c < j.k - 1:
            out.append((1.0 - q, s[:i] + (c + 1,) + s[i + 1 :], 0.0))
        return out

    def allowed(self, s: State, mode: str, order: Sequence[int] | None) -> list[int]:
        live = [i for i in range(self.n) if self.alive(s, i)]
        if mode == "preemptive" or not live:
            return live
        started = [i for i in live if s[i] > 0]
        if mode == "adaptive":
            return started if started else live
        assert order is not None
        return [next(i for i in order if self.alive(s, i))]


@lru_cache(maxsize=4096)
def _inv_n(done: int, probs: tuple[float, ...]) -> float:
    dist = [1.0]
    for p in probs:
        new = [0.0] * (len(dist) + 1)
        for c, w in enumerate(dist):
            new[c] += w * (1 - p)
            new[c + 1] += w * p
        dist = new
    return sum(w / (done + c) for c, w in enumerate(dist) if done + c > 0)


def initial_state(inst: Instance) -> State:
    return (0,) * inst.n


def optimal_policy(
    inst: Instance,
    kind: str,
    mode: str = "preemptive",
    order: Sequence[int] | None = None,
) -> PolicyResult:
    """Minimal expected objective `kind` over the policies of class `mode`, by exact DP.

    mode "preemptive": any alive job may be served at each checkpoint; "adaptive": the next
    job is chosen from the observed outcomes but a started job runs to its end; "fixed": the
    given `order`, non-preemptively (a check of the DP against the closed forms).
    """
    if mode not in MODES:
        raise InvalidInput(f"mode: choose one of {MODES} (got {mode!r})")
    if (mode == "fixed") != (order is not None):
        raise InvalidInput("order: give an order exactly when mode is 'fixed'")
    model = _Model(inst, kind)
    memo: dict[State, float] = {}
    policy: dict[State, int] = {}

    def value(s: State) -> float:
        got = memo.get(s)
        if got is not None:
            return got
        best, arg = float("inf"), -1
        choices = model.allowed(s, mode, order)
        if not choices:
            memo[s] = 0.0
            return 0.0
        for i in choices:
            v = sum(p * (cost + value(nxt)) for p, nxt, cost in model.branches(s, i))
            if v < best - 1e-15 * abs(best) or arg < 0:
                best, arg = v, i
        memo[s] = best
        policy[s] = arg
        return best

    v = value(initial_state(inst))
    return PolicyResult(v, mode, kind, policy, len(memo))


def literal_value_B(inst: Instance, mode: str = "preemptive") -> float:
    """Optimal B by the literal DP over (state, sum of successful completion times).

    Exponential in the number of distinct sums; for tiny instances only, to check the
    affine reduction used by `optimal_policy`.
    """
    model = _Model(inst, "A")  # kind only affects branch costs, recomputed here
    memo: dict[tuple[State, float], float] = {}

    def value(s: State, total: float) -> float:
        key = (s, total)
        if key in memo:
            return memo[key]
        choices = model.allowed(s, mode, None)
        if not choices:
            c = model.successes(s)
            r = total / c if c else 0.0
        else:
            r = min(
                sum(p * value(nxt, total + cost) for p, nxt, cost in model.branches(s, i))
                for i in choices
            )
        memo[key] = r
        return r

    return value(initial_state(inst), 0.0)


def evaluate_policy_exact(
    inst: Instance, policy: Callable[[State], int] | dict[State, int], kind: str
) -> float:
    """Exact value of a policy by enumerating every joint outcome (independent of the DP)."""
    choose = policy.__getitem__ if isinstance(policy, dict) else policy
    jobs = [_Job(j.sizes, j.probs) for j in inst.jobs]
    total = 0.0
    for outcome in itertools.product(*[range(j.k) for j in jobs]):
        prob = 1.0
        for j, l in zip(jobs, outcome, strict=True):
            prob *= j.probs[l]
        if prob == 0:
            continue
        s = list(initial_state(inst))
        t, succ_sum, succ = 0.0, 0.0, 0
        while any(c < j.k for j, c in zip(jobs, s, strict=True)):
            i = choose(tuple(s))
            j, c = jobs[i], s[i]
            if not c < j.k:
                raise InvalidInput(f"policy: chose finished job {i} in state {tuple(s)}")
            t += j.sizes[c] - j.age(c)
            if outcome[i] == c:
                s[i] = j.k + c
                if c == j.k - 1:
                    succ_sum += t
                    succ += 1
            else:
                s[i] = c + 1
        cost = succ_sum if kind == "A" else (succ_sum / succ if succ else 0.0)
        total += prob * cost
    return total


def decision_states(inst: Instance) -> list[State]:
    """Every state with at least two alive jobs (where a preemptive policy has a choice)."""
    jobs = [_Job(j.sizes, j.probs) for j in inst.jobs]
    out = []
    for s in itertools.product(*[range(2 * j.k) for j in jobs]):
        if sum(1 for j, c in zip(jobs, s, strict=True) if c < j.k) >= 2:
            out.append(tuple(s))
    return out


def brute_force_preemptive(inst: Instance, kind: str, max_policies: int = 100_000) -> float:
    """Best deterministic Markov preemptive policy by trying them all (tiny instances only).

    An optimality oracle independent of the DP's minimization: each policy is evaluated by
    `evaluate_policy_exact`.
    """
    jobs = [_Job(j.sizes, j.probs) for j in inst.jobs]
    dstates = decision_states(inst)
    options = [
        [i for i, (j, c) in enumerate(zip(jobs, s, strict=True)) if c < j.k] for s in dstates
    ]
    count = 1
    for o in options:
        count *= len(o)
    if count > max_policies:
        raise InvalidInput(
            f"instance: {count} policies exceed the brute-force limit {max_policies}"
        )

    def fallback(s: State) -> int:
        return next(i for i, (j, c) in enumerate(zip(jobs, s, strict=True)) if c < j.k)

    best = float("inf")
    for pick in itertools.product(*options):
        table = dict(zip(dstates, pick, strict=True))

        def policy(s: State, t: dict[State, int] = table) -> int:
            return t.get(s, fallback(s))

        v = evaluate_policy_exact(inst, policy, kind)
        best = min(best, v)
    return best
