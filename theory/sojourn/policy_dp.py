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

Objectives TK and DK (the short paper's first K successes) stop at the K-th success: a state
with K successes is terminal. DK adds each success's completion time (additive, like A); TK
adds the K-th success's completion time, or the elapsed time at the end when fewer than K
jobs succeed (the makespan, which no policy changes). `order_margin` measures how far
the best fixed order is from being beaten at any state it reaches (the adversarial search's
objective: a negative margin is a preemptive or adaptive step that helps).
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
KINDS = ("A", "B", "TK", "DK")
STOPPING = ("TK", "DK")  # objectives that stop at the K-th success
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

    def __init__(self, inst: Instance, kind: str, k: int | None = None) -> None:
        if kind not in KINDS:
            raise InvalidInput(f"objective: policy DP supports {KINDS} (got {kind!r})")
        if (kind in STOPPING) != (k is not None):
            raise InvalidInput(f"k: give K exactly for objectives {STOPPING} (got {kind}, k={k})")
        if k is not None and not 1 <= k <= inst.n:
            raise InvalidInput(f"k: must lie in 1..{inst.n} (got {k})")
        self.jobs = [_Job(j.sizes, j.probs) for j in inst.jobs]
        self.n = inst.n
        self.kind = kind
        self.k = k
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
                cost = self._success_cost(t, nxt)
            out.append((q, nxt, cost))
        if q < 1 and c < j.k - 1:
            out.append((1.0 - q, s[:i] + (c + 1,) + s[i + 1 :], 0.0))
        return out

    def _success_cost(self, t: float, nxt: State) -> float:
        """Cost of a success completing at time t into state nxt."""
        if self.kind in ("A", "DK"):
            return t
        if self.kind == "B":
            return t * self.inv_n(nxt)
        return t if self.successes(nxt) == self.k else 0.0  # TK: the K-th success

    def stopped(self, s: State) -> bool:
        """TK/DK: the K-th success has completed (nothing more counts)."""
        return self.k is not None and self.successes(s) >= self.k

    def terminal_cost(self, s: State) -> float:
        """Cost at a state with no choice left: TK's makespan when fewer than K succeeded."""
        if self.kind == "TK" and not self.stopped(s):
            return self.elapsed(s)
        return 0.0

    def allowed(self, s: State, mode: str, order: Sequence[int] | None) -> list[int]:
        if self.stopped(s):
            return []
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


class PolicySolver:
    """The exact value function of one policy class (memoized DP over job states).

    `value(s)` is the optimal expected cost-to-go from state s, `q(s, i)` that of serving job
    i to its next level first; `policy` holds the chosen job per state solved.
    """

    def __init__(
        self,
        inst: Instance,
        kind: str,
        mode: str = "preemptive",
        order: Sequence[int] | None = None,
        k: int | None = None,
    ) -> None:
        if mode not in MODES:
            raise InvalidInput(f"mode: choose one of {MODES} (got {mode!r})")
        if (mode == "fixed") != (order is not None):
            raise InvalidInput("order: give an order exactly when mode is 'fixed'")
        self.model = _Model(inst, kind, k)
        self.mode, self.order = mode, order
        self.memo: dict[State, float] = {}
        self.policy: dict[State, int] = {}

    def q(self, s: State, i: int) -> float:
        return sum(p * (cost + self.value(nxt)) for p, nxt, cost in self.model.branches(s, i))

    def value(self, s: State) -> float:
        got = self.memo.get(s)
        if got is not None:
            return got
        choices = self.model.allowed(s, self.mode, self.order)
        if not choices:
            v = self.model.terminal_cost(s)
            self.memo[s] = v
            return v
        best, arg = float("inf"), -1
        for i in choices:
            v = self.q(s, i)
            if v < best - 1e-15 * abs(best) or arg < 0:
                best, arg = v, i
        self.memo[s] = best
        self.policy[s] = arg
        return best


def optimal_policy(
    inst: Instance,
    kind: str,
    mode: str = "preemptive",
    order: Sequence[int] | None = None,
    k: int | None = None,
) -> PolicyResult:
    """Minimal expected objective `kind` (K = `k` for TK/DK) over the policies of class `mode`.

    mode "preemptive": any alive job may be served at each checkpoint; "adaptive": the next
    job is chosen from the observed outcomes but a started job runs to its end; "fixed": the
    given `order`, non-preemptively (a check of the DP against the closed forms).
    """
    solver = PolicySolver(inst, kind, mode, order, k)
    v = solver.value(initial_state(inst))
    return PolicyResult(v, mode, kind, solver.policy, len(solver.memo))


def order_margin(solver: PolicySolver, order: Sequence[int], tie: float = 1e-12) -> float:
    """How much better the fixed `order`'s next step is than any other, where it matters.

    Over every state that the non-preemptive `order` reaches with positive probability and
    where a choice exists, the smallest Q(s, other job) - Q(s, order's job) under `solver`'s
    value function, relative to its optimal value at the start; gaps within `tie` of zero
    (ties: e.g. under TK when every remaining job must succeed) are left out; inf when none
    is left. Under the preemptive class every alive job is an alternative (also a switch away
    from a started job), under the adaptive class the unstarted jobs between two jobs. A
    margin below zero means that class beats the order (the order's step at a state it
    reaches is not optimal); >= 0 means the order is optimal in the class. Unlike the gains,
    the margin varies smoothly where the claim holds (zero gain), so a search can descend on
    it toward a counterexample.
    """
    model = solver.model
    scale = max(abs(solver.value((0,) * model.n)), 1e-300)
    margin = float("inf")
    for s in _reached_by_order(model, order):
        choices = model.allowed(s, solver.mode, None)
        ours = next(i for i in order if model.alive(s, i))
        if ours not in choices:  # adaptive: a started job must finish (never on this path)
            continue
        mine = solver.q(s, ours)
        for i in choices:
            if i != ours:
                gap = (solver.q(s, i) - mine) / scale
                if abs(gap) > tie:
                    margin = min(margin, gap)
    return margin


def _reached_by_order(model: _Model, order: Sequence[int]) -> list[State]:
    """States with a choice that the non-preemptive `order` reaches with positive probability."""
    seen: set[State] = set()
    out: list[State] = []
    stack = [(0,) * model.n]
    while stack:
        s = stack.pop()
        if s in seen or not model.allowed(s, "preemptive", None):
            continue
        seen.add(s)
        if len(model.allowed(s, "preemptive", None)) >= 2:
            out.append(s)
        i = next(j for j in order if model.alive(s, j))
        stack.extend(nxt for p, nxt, _ in model.branches(s, i) if p > 0)
    return out


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
    inst: Instance,
    policy: Callable[[State], int] | dict[State, int],
    kind: str,
    k: int | None = None,
) -> float:
    """Exact value of a policy by enumerating every joint outcome (independent of the DP).

    TK/DK (K = `k`): the run stops at the K-th success; TK's value is that success's time,
    or the time at which every job has ended when fewer than K succeed.
    """
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
        t, succ_sum, succ, last_success = 0.0, 0.0, 0, -1.0
        while any(c < j.k for j, c in zip(jobs, s, strict=True)) and (k is None or succ < k):
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
                    last_success = t if k is not None and succ == k else last_success
            else:
                s[i] = c + 1
        total += prob * _realized_cost(kind, t, succ_sum, succ, last_success)
    return total


def _realized_cost(kind: str, t: float, succ_sum: float, succ: int, last: float) -> float:
    """One outcome's cost: t is the stopping time, last the K-th success's time (-1: none)."""
    if kind in ("A", "DK"):
        return succ_sum
    if kind == "B":
        return succ_sum / succ if succ else 0.0
    return last if last >= 0 else t  # TK: reached the K-th success, else the makespan


def decision_states(inst: Instance, k: int | None = None) -> list[State]:
    """Every state with at least two alive jobs (and, with K = `k`, fewer than K successes):
    where a preemptive policy has a choice."""
    jobs = [_Job(j.sizes, j.probs) for j in inst.jobs]
    out = []
    for s in itertools.product(*[range(2 * j.k) for j in jobs]):
        done = sum(1 for j, c in zip(jobs, s, strict=True) if c == 2 * j.k - 1)
        alive = sum(1 for j, c in zip(jobs, s, strict=True) if c < j.k)
        if alive >= 2 and (k is None or done < k):
            out.append(tuple(s))
    return out


def brute_force_preemptive(
    inst: Instance, kind: str, max_policies: int = 100_000, k: int | None = None
) -> float:
    """Best deterministic Markov preemptive policy by trying them all (tiny instances only).

    An optimality oracle independent of the DP's minimization: each policy is evaluated by
    `evaluate_policy_exact`.
    """
    jobs = [_Job(j.sizes, j.probs) for j in inst.jobs]
    dstates = decision_states(inst, k)
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

        v = evaluate_policy_exact(inst, policy, kind, k)
        best = min(best, v)
    return best
