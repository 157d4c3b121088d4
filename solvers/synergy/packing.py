"""One round of GPU-proportional, GREEDY or TUNE placement, compiled (numba) on arrays.

The same decisions, in the same floating-point operations and order, as `Placer.place` /
`Placer.serve` in `placement.py` (the readable reference; `tests/synergy/test_packing.py`
checks both agree on random rounds), but fast enough for rounds of thousands of jobs on
thousands of servers: servers are kept in buckets by free GPUs, each bucket sorted by index,
so best fit (fewest free GPUs that fit, lowest index) looks only at partly used servers with
enough free GPUs and the first untouched one, instead of scanning the whole cluster for every
job: a round costs about (jobs x partly used servers), not (jobs x servers).

Modes: 0 proportional, 1 greedy, 2 tune (see `heuristics.py`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

PROPORTIONAL, GREEDY, TUNE = 0, 1, 2
# stats counters returned by the kernel, in this order
COUNTERS = ("at_ideal", "at_fallback", "reclaimed", "peers_reset", "unplaced", "skipped_no_fit")


@njit(cache=True)
def _move(lvl: Any, cnt: Any, s: int, f_old: int, f_new: int) -> None:
    """Move server s from bucket f_old to bucket f_new (each kept sorted by index)."""
    row = lvl[f_old]
    k = np.searchsorted(row[: cnt[f_old]], s)
    for i in range(k, cnt[f_old] - 1):
        row[i] = row[i + 1]
    cnt[f_old] -= 1
    row = lvl[f_new]
    k = np.searchsorted(row[: cnt[f_new]], s)
    for i in range(cnt[f_new], k, -1):
        row[i] = row[i - 1]
    row[k] = s
    cnt[f_new] += 1


@njit(cache=True)
def _find(
    g: int, c: float, m: float, free_c: Any, free_m: Any, lvl: Any, cnt: Any, G: int,
    tc: float, tm: float, out_s: Any, out_n: Any,
) -> int:  # fmt: skip
    """Where g GPUs at (c, m) per GPU go (Placer.find); writes parts, returns their count
    (0: nowhere)."""
    nc = g * c - tc
    nm = g * m - tm
    for f in range(g, G + 1):
        row = lvl[f]
        # servers with all GPUs free have had nothing placed: all alike, so try only the first
        last = min(cnt[f], 1) if f == G else cnt[f]
        for i in range(last):
            s = row[i]
            if free_c[s] >= nc and free_m[s] >= nm:
                out_s[0] = s
                out_n[0] = g
                return 1
    if g == 1:
        return 0
    k = 0
    rem = g
    for f in range(1, G + 1):
        row = lvl[f]
        for i in range(cnt[f]):
            s = row[i]
            n = min(f, rem)
            if c > 0:
                n = min(n, int((free_c[s] + tc) / c))
            if m > 0:
                n = min(n, int((free_m[s] + tm) / m))
            if n > 0:
                out_s[k] = s
                out_n[k] = n
                k += 1
                rem -= n
                if rem == 0:
                    return k
    return 0


@njit(cache=True)
def _candidates(g: int, free_g: Any, lvl: Any, cnt: Any, G: int, out_s: Any, out_n: Any) -> int:
    """Servers a g-GPU job would use (Placer._candidates); returns their count."""
    if g > 1:
        for s in range(free_g.size):
            if free_g[s] >= g:
                out_s[0] = s
                out_n[0] = g
                return 1
    k = 0
    rem = g
    for f in range(1, G + 1):
        row = lvl[f]
        for i in range(cnt[f]):
            n = min(f, rem)
            out_s[k] = row[i]
            out_n[k] = n
            k += 1
            rem -= n
            if rem == 0:
                return k
    return k


@njit(cache=True)
def _peer_before(a: int, b: int, plen: Any, cj: Any, mj: Any) -> bool:
    """Sort key (parts, -c, -m) of reclaim: whether peer a sorts strictly before peer b."""
    if plen[a] != plen[b]:
        return plen[a] < plen[b]
    if cj[a] != cj[b]:
        return -cj[a] < -cj[b]
    return -mj[a] < -mj[b]


@njit(cache=True)
def _reclaim(
    g: int, c: float, m: float, st: Any, tol: Any, models: Any, prop_t: Any,
    cand_s: Any, cand_n: Any, peers: Any,
) -> int:  # fmt: skip
    """Reset over-provisioned peers on the candidate servers (Placer.reclaim)."""
    free_g, free_c, free_m, lvl, cnt, on, on_cnt, pstart, plen, ps, pn, cj, mj, tj = st
    pc, pm, tc, tm, G = tol
    reset = 0
    k = _candidates(g, free_g, lvl, cnt, int(G), cand_s, cand_n)
    for q in range(k):
        s, n = cand_s[q], cand_n[q]
        if free_c[s] >= n * c - tc and free_m[s] >= n * m - tm:
            continue
        npeer = on_cnt[s]
        for i in range(npeer):  # stable insertion sort of on[s] by (parts, -c, -m)
            p = on[s, i]
            h = i
            while h > 0 and _peer_before(p, peers[h - 1], plen, cj, mj):
                peers[h] = peers[h - 1]
                h -= 1
            peers[h] = p
        for i in range(npeer):
            p = peers[i]
            cp, mp = cj[p], mj[p]
            if cp < pc - tc or mp < pm - tm or (cp <= pc + tc and mp <= pm + tm):
                continue
            for r in range(pstart[p], pstart[p] + plen[p]):
                free_c[ps[r]] += pn[r] * (cp - pc)
                free_m[ps[r]] += pn[r] * (mp - pm)
            cj[p], mj[p], tj[p] = pc, pm, prop_t[models[p]]
            reset += 1
            if free_c[s] >= n * c - tc and free_m[s] >= n * m - tm:
                break
    return reset


@njit(cache=True)
def _place(
    j: int, g: int, c: float, m: float, t: float, st: Any, tol: Any, out_s: Any, out_n: Any,
    used: Any,
) -> bool:  # fmt: skip
    """Place job j at (c, m) per GPU and commit it (Placer.place); False when it does not fit."""
    free_g, free_c, free_m, lvl, cnt, on, on_cnt, pstart, plen, ps, pn, cj, mj, tj = st
    tc, tm, G = tol[2], tol[3], int(tol[4])
    k = _find(g, c, m, free_c, free_m, lvl, cnt, G, tc, tm, out_s, out_n)
    if k == 0:
        return False
    base = used[0]
    for q in range(k):
        s, n = out_s[q], out_n[q]
        _move(lvl, cnt, s, free_g[s], free_g[s] - n)
        free_g[s] -= n
        free_c[s] -= n * c
        free_m[s] -= n * m
        on[s, on_cnt[s]] = j
        on_cnt[s] += 1
        ps[base + q] = s
        pn[base + q] = n
        used[1] -= n  # total free GPUs
    used[0] = base + k
    pstart[j] = base
    plen[j] = k
    cj[j], mj[j], tj[j] = c, m, t
    return True


@njit(cache=True)
def _empty_round(gpus: Any, S: int, G: int, cpus: float, mem: float) -> Any:
    """The state of an empty cluster (S servers of G GPUs, `cpus` CPUs, `mem` GB) for a round
    of the jobs demanding `gpus`: the tuple `st` that `_place` and `_reclaim` take (free
    resources, buckets by free GPUs, jobs per server, parts and configuration per job)."""
    n = gpus.size
    free_g = np.full(S, G, dtype=np.int64)
    free_c = np.full(S, cpus)
    free_m = np.full(S, mem)
    lvl = np.zeros((G + 1, S), dtype=np.int64)
    cnt = np.zeros(G + 1, dtype=np.int64)
    lvl[G, :] = np.arange(S)
    cnt[G] = S
    on = np.zeros((S, G), dtype=np.int64)
    on_cnt = np.zeros(S, dtype=np.int64)
    pstart = np.zeros(n, dtype=np.int64)
    plen = np.zeros(n, dtype=np.int64)
    cap = 0
    for j in range(n):
        cap += min(gpus[j], S)
    ps = np.zeros(cap, dtype=np.int64)
    pn = np.zeros(cap, dtype=np.int64)
    cj = np.zeros(n)
    mj = np.zeros(n)
    tj = np.zeros(n)
    return (free_g, free_c, free_m, lvl, cnt, on, on_cnt, pstart, plen, ps, pn, cj, mj, tj)


@njit(cache=True)
def _tune_after_ideal(
    j: int, k: int, g: int, c: float, m: float, t: float, st: Any, tol: Any, models: Any,
    prop_t: Any, out_s: Any, out_n: Any, peers: Any, used: Any, ctr: Any,
) -> None:  # fmt: skip
    """TUNE's steps for job j (model k, g GPUs) once its ideal (c, m, t) did not fit
    (Placer.serve): the proportional share if the ideal is above it, then reclaiming from
    over-provisioned peers and one more try; counts the outcome in `ctr` (COUNTERS)."""
    pc, pm, tc, tm = tol[0], tol[1], tol[2], tol[3]
    if not (c <= pc + tc and m <= pm + tm):
        c, m, t = pc, pm, prop_t[k]
        if _place(j, g, c, m, t, st, tol, out_s, out_n, used):
            ctr[1] += 1
            return
    ctr[3] += _reclaim(g, c, m, st, tol, models, prop_t, out_s, out_n, peers)
    if _place(j, g, c, m, t, st, tol, out_s, out_n, used):
        ctr[2] += 1
    else:
        ctr[4] += 1


@njit(cache=True)
def pack_round(
    mode: int, models: Any, gpus: Any, S: int, G: int, cpus: float, mem: float, pc: float,
    pm: float, tc: float, tm: float, ideal_c: Any, ideal_m: Any, ideal_t: Any, prop_t: Any,
) -> Any:  # fmt: skip
    """One round in policy order; returns (part start, part count, servers, GPUs, c, m, t,
    counters) per job (part count 0: not running)."""
    n = models.size
    st = _empty_round(gpus, S, G, cpus, mem)
    free_g, free_c, free_m, lvl, cnt, on, on_cnt, pstart, plen, ps, pn, cj, mj, tj = st
    tol = (pc, pm, tc, tm, float(G))
    wide = max(S, G) + 1
    out_s = np.zeros(wide, dtype=np.int64)
    out_n = np.zeros(wide, dtype=np.int64)
    peers = np.zeros(G, dtype=np.int64)
    used = np.array([0, S * G], dtype=np.int64)  # parts written, total free GPUs
    ctr = np.zeros(len(COUNTERS), dtype=np.int64)
    for j in range(n):
        if used[1] == 0:
            break
        k, g = models[j], gpus[j]
        if g > used[1]:
            continue
        if mode == PROPORTIONAL:
            c, m, t = pc, pm, prop_t[k]
        else:
            c, m, t = ideal_c[k], ideal_m[k], ideal_t[k]
        if g == 1:
            # The common case written out here, with the decisions and arithmetic of
            # _find/_move/_place but no call: passing the state arrays to a call costs
            # reference counting that is 3x the search itself on rounds of thousands of jobs
            # (numba's inline="always" keeps it). Best fit: fewest free GPUs, lowest index.
            srv = -1
            for f in range(1, G + 1):
                last = min(cnt[f], 1) if f == G else cnt[f]
                for i in range(last):
                    s = lvl[f, i]
                    if free_c[s] >= c - tc and free_m[s] >= m - tm:
                        srv = s
                        break
                if srv >= 0:
                    break
            placed = srv >= 0
            if placed:
                fo = free_g[srv]
                q = 0
                while lvl[fo, q] != srv:
                    q += 1
                for i in range(q, cnt[fo] - 1):
                    lvl[fo, i] = lvl[fo, i + 1]
                cnt[fo] -= 1
                q = cnt[fo - 1]
                while q > 0 and lvl[fo - 1, q - 1] > srv:  # keep the bucket sorted by index
                    lvl[fo - 1, q] = lvl[fo - 1, q - 1]
                    q -= 1
                lvl[fo - 1, q] = srv
                cnt[fo - 1] += 1
                free_g[srv] -= 1
                free_c[srv] -= c
                free_m[srv] -= m
                on[srv, on_cnt[srv]] = j
                on_cnt[srv] += 1
                ps[used[0]] = srv
                pn[used[0]] = 1
                pstart[j] = used[0]
                plen[j] = 1
                used[0] += 1
                used[1] -= 1
                cj[j], mj[j], tj[j] = c, m, t
        else:
            placed = _place(j, g, c, m, t, st, tol, out_s, out_n, used)
        if mode == PROPORTIONAL:
            continue
        if placed:
            ctr[0] += 1
            continue
        if mode == GREEDY:
            ctr[5] += 1
            continue
        _tune_after_ideal(j, k, g, c, m, t, st, tol, models, prop_t, out_s, out_n, peers, used, ctr)
    return pstart, plen, ps[: used[0]], pn[: used[0]], cj, mj, tj, ctr
