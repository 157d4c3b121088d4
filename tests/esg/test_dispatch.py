"""The ESG dispatch rule: warm container first, then the upstream invoker, then best fit on
GPU share, evicting idle containers (oldest first) only when nothing fits."""

from __future__ import annotations

from schedlab.solvers.esg.dispatch import Container, Invoker, expire, place


def _cluster() -> list[Invoker]:
    return [Invoker(8.0, 1.0), Invoker(8.0, 1.0), Invoker(8.0, 1.0)]


def test_warm_container_first():
    inv = _cluster()
    warm = Container(0, 1, 3, 2.0, 0.25, busy=False, idle_since=5.0)
    inv[2].containers.append(warm)
    pl = place(inv, 0, 1, 7, 2.0, 0.25, upstream=[0])
    assert (pl.invoker, pl.container, pl.cold) == (2, warm, False)
    busy = place(inv, 0, 1, 7, 2.0, 0.5, upstream=[0])  # another size: a new container
    assert busy.cold and busy.invoker == 0


def test_upstream_then_best_fit_on_gpu_share():
    inv = _cluster()
    inv[0].containers.append(Container(1, 0, 0, 1.0, 0.5, busy=True))
    inv[1].containers.append(Container(1, 0, 0, 1.0, 0.25, busy=True))
    up = place(inv, 0, 0, 0, 1.0, 0.25, upstream=[2])
    assert up.invoker == 2  # upstream wins
    up.container.busy = True
    # best fit: least free GPU share that fits (invoker 0 has 0.5 free, 1 has 0.75, 2 has 0.75)
    fit = place(inv, 0, 1, 0, 1.0, 0.5)
    assert fit.invoker == 0
    fit.container.busy = True
    assert place(inv, 0, 1, 0, 1.0, 0.8).invoker == -1  # nothing fits, nothing idle


def test_eviction_oldest_idle_only_when_needed():
    inv = [Invoker(4.0, 1.0)]
    old = Container(0, 0, 0, 1.0, 0.5, idle_since=1.0)
    new = Container(0, 1, 0, 1.0, 0.25, idle_since=2.0)
    inv[0].containers += [old, new]
    pl = place(inv, 1, 0, 0, 1.0, 0.5)
    assert pl.cold and pl.invoker == 0
    assert old not in inv[0].containers and new in inv[0].containers
    expire(inv, t=100.0, keep_alive_ms=50.0)
    assert inv[0].containers == []  # both idle containers expired (the new one is idle too)
