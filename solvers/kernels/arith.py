"""Per-order arithmetic, written once as plain Python and compiled for both targets.

`solvers.kernels.cpu` compiles these with `numba.njit` and `solvers.kernels.gpu` with
`numba.cuda.jit(device=True)`; they can also run as plain Python (tiny inputs, and the CUDA
simulator). Rules that keep them valid on both targets: no allocation (callers pass scratch
arrays), no exceptions, only scalar arithmetic and array indexing, no calls between them.

Objective codes: 0 = A, 1 = B, 2 = TK, 3 = DK.
"""

from __future__ import annotations

import numpy as np

KIND_CODES = {"A": 0, "B": 1, "TK": 2, "DK": 3}
SCRATCH = 64  # floats of scratch that `lop_pair16` / `lop_pair8` need


# ---- A and B: the factor form, two orders at a time ----------------------------------------
# value(order) = c0 + sum over column blocks of the partial sums below. The factor columns come
# in blocks of 16 (or one final block of 8), T1's and T2's columns side by side in one table per
# block (see `LopTables.blocked`). The lanes are written out as scalars with constant column
# indices: LLVM's SLP vectorizer packs them into SIMD registers on the CPU, a GPU thread keeps
# them in registers. Two orders per call give the CPU independent dependency chains while the
# block's table slice stays in the L1 cache; the scratch stores seed the vectorizer and fix the
# order of the final sums. Row indices are cast to unsigned so that numba emits no
# negative-index wraparound code in the inner loop (about 20% faster on the CPU); the callers
# pass validated permutations.


def lop_pair16(oa, ob, T, scratch):
    """Partial sums of two orders over one block of 16 factors: T is (n, 32), its first
    16 columns from T1 and the last 16 from T2. Returns (value part of oa, of ob)."""
    n = oa.shape[0]
    sa0 = sa1 = sa2 = sa3 = sa4 = sa5 = sa6 = sa7 = 0.0
    sa8 = sa9 = sa10 = sa11 = sa12 = sa13 = sa14 = sa15 = 0.0
    pa0 = pa1 = pa2 = pa3 = pa4 = pa5 = pa6 = pa7 = 0.0
    pa8 = pa9 = pa10 = pa11 = pa12 = pa13 = pa14 = pa15 = 0.0
    sb0 = sb1 = sb2 = sb3 = sb4 = sb5 = sb6 = sb7 = 0.0
    sb8 = sb9 = sb10 = sb11 = sb12 = sb13 = sb14 = sb15 = 0.0
    pb0 = pb1 = pb2 = pb3 = pb4 = pb5 = pb6 = pb7 = 0.0
    pb8 = pb9 = pb10 = pb11 = pb12 = pb13 = pb14 = pb15 = 0.0
    for y in range(n):
        ra = np.uint64(oa[y])
        rb = np.uint64(ob[y])
        sa0 += T[ra, 0] * pa0
        sa1 += T[ra, 1] * pa1
        sa2 += T[ra, 2] * pa2
        sa3 += T[ra, 3] * pa3
        sa4 += T[ra, 4] * pa4
        sa5 += T[ra, 5] * pa5
        sa6 += T[ra, 6] * pa6
        sa7 += T[ra, 7] * pa7
        sa8 += T[ra, 8] * pa8
        sa9 += T[ra, 9] * pa9
        sa10 += T[ra, 10] * pa10
        sa11 += T[ra, 11] * pa11
        sa12 += T[ra, 12] * pa12
        sa13 += T[ra, 13] * pa13
        sa14 += T[ra, 14] * pa14
        sa15 += T[ra, 15] * pa15
        pa0 += T[ra, 16]
        pa1 += T[ra, 17]
        pa2 += T[ra, 18]
        pa3 += T[ra, 19]
        pa4 += T[ra, 20]
        pa5 += T[ra, 21]
        pa6 += T[ra, 22]
        pa7 += T[ra, 23]
        pa8 += T[ra, 24]
        pa9 += T[ra, 25]
        pa10 += T[ra, 26]
        pa11 += T[ra, 27]
        pa12 += T[ra, 28]
        pa13 += T[ra, 29]
        pa14 += T[ra, 30]
        pa15 += T[ra, 31]
        sb0 += T[rb, 0] * pb0
        sb1 += T[rb, 1] * pb1
        sb2 += T[rb, 2] * pb2
        sb3 += T[rb, 3] * pb3
        sb4 += T[rb, 4] * pb4
        sb5 += T[rb, 5] * pb5
        sb6 += T[rb, 6] * pb6
        sb7 += T[rb, 7] * pb7
        sb8 += T[rb, 8] * pb8
        sb9 += T[rb, 9] * pb9
        sb10 += T[rb, 10] * pb10
        sb11 += T[rb, 11] * pb11
        sb12 += T[rb, 12] * pb12
        sb13 += T[rb, 13] * pb13
        sb14 += T[rb, 14] * pb14
        sb15 += T[rb, 15] * pb15
        pb0 += T[rb, 16]
        pb1 += T[rb, 17]
        pb2 += T[rb, 18]
        pb3 += T[rb, 19]
        pb4 += T[rb, 20]
        pb5 += T[rb, 21]
        pb6 += T[rb, 22]
        pb7 += T[rb, 23]
        pb8 += T[rb, 24]
        pb9 += T[rb, 25]
        pb10 += T[rb, 26]
        pb11 += T[rb, 27]
        pb12 += T[rb, 28]
        pb13 += T[rb, 29]
        pb14 += T[rb, 30]
        pb15 += T[rb, 31]
    scratch[0] = sa0
    scratch[1] = sa1
    scratch[2] = sa2
    scratch[3] = sa3
    scratch[4] = sa4
    scratch[5] = sa5
    scratch[6] = sa6
    scratch[7] = sa7
    scratch[8] = sa8
    scratch[9] = sa9
    scratch[10] = sa10
    scratch[11] = sa11
    scratch[12] = sa12
    scratch[13] = sa13
    scratch[14] = sa14
    scratch[15] = sa15
    scratch[16] = sb0
    scratch[17] = sb1
    scratch[18] = sb2
    scratch[19] = sb3
    scratch[20] = sb4
    scratch[21] = sb5
    scratch[22] = sb6
    scratch[23] = sb7
    scratch[24] = sb8
    scratch[25] = sb9
    scratch[26] = sb10
    scratch[27] = sb11
    scratch[28] = sb12
    scratch[29] = sb13
    scratch[30] = sb14
    scratch[31] = sb15
    scratch[32] = pa0
    scratch[33] = pa1
    scratch[34] = pa2
    scratch[35] = pa3
    scratch[36] = pa4
    scratch[37] = pa5
    scratch[38] = pa6
    scratch[39] = pa7
    scratch[40] = pa8
    scratch[41] = pa9
    scratch[42] = pa10
    scratch[43] = pa11
    scratch[44] = pa12
    scratch[45] = pa13
    scratch[46] = pa14
    scratch[47] = pa15
    scratch[48] = pb0
    scratch[49] = pb1
    scratch[50] = pb2
    scratch[51] = pb3
    scratch[52] = pb4
    scratch[53] = pb5
    scratch[54] = pb6
    scratch[55] = pb7
    scratch[56] = pb8
    scratch[57] = pb9
    scratch[58] = pb10
    scratch[59] = pb11
    scratch[60] = pb12
    scratch[61] = pb13
    scratch[62] = pb14
    scratch[63] = pb15
    va = 0.0
    vb = 0.0
    for t in range(16):
        va += scratch[t]
        vb += scratch[16 + t]
    return va, vb


def lop_pair8(oa, ob, T, scratch):
    """Partial sums of two orders over one block of 8 factors: T is (n, 16), its first
    8 columns from T1 and the last 8 from T2. Returns (value part of oa, of ob)."""
    n = oa.shape[0]
    sa0 = sa1 = sa2 = sa3 = sa4 = sa5 = sa6 = sa7 = 0.0
    pa0 = pa1 = pa2 = pa3 = pa4 = pa5 = pa6 = pa7 = 0.0
    sb0 = sb1 = sb2 = sb3 = sb4 = sb5 = sb6 = sb7 = 0.0
    pb0 = pb1 = pb2 = pb3 = pb4 = pb5 = pb6 = pb7 = 0.0
    for y in range(n):
        ra = np.uint64(oa[y])
        rb = np.uint64(ob[y])
        sa0 += T[ra, 0] * pa0
        sa1 += T[ra, 1] * pa1
        sa2 += T[ra, 2] * pa2
        sa3 += T[ra, 3] * pa3
        sa4 += T[ra, 4] * pa4
        sa5 += T[ra, 5] * pa5
        sa6 += T[ra, 6] * pa6
        sa7 += T[ra, 7] * pa7
        pa0 += T[ra, 8]
        pa1 += T[ra, 9]
        pa2 += T[ra, 10]
        pa3 += T[ra, 11]
        pa4 += T[ra, 12]
        pa5 += T[ra, 13]
        pa6 += T[ra, 14]
        pa7 += T[ra, 15]
        sb0 += T[rb, 0] * pb0
        sb1 += T[rb, 1] * pb1
        sb2 += T[rb, 2] * pb2
        sb3 += T[rb, 3] * pb3
        sb4 += T[rb, 4] * pb4
        sb5 += T[rb, 5] * pb5
        sb6 += T[rb, 6] * pb6
        sb7 += T[rb, 7] * pb7
        pb0 += T[rb, 8]
        pb1 += T[rb, 9]
        pb2 += T[rb, 10]
        pb3 += T[rb, 11]
        pb4 += T[rb, 12]
        pb5 += T[rb, 13]
        pb6 += T[rb, 14]
        pb7 += T[rb, 15]
    scratch[0] = sa0
    scratch[1] = sa1
    scratch[2] = sa2
    scratch[3] = sa3
    scratch[4] = sa4
    scratch[5] = sa5
    scratch[6] = sa6
    scratch[7] = sa7
    scratch[8] = sb0
    scratch[9] = sb1
    scratch[10] = sb2
    scratch[11] = sb3
    scratch[12] = sb4
    scratch[13] = sb5
    scratch[14] = sb6
    scratch[15] = sb7
    scratch[16] = pa0
    scratch[17] = pa1
    scratch[18] = pa2
    scratch[19] = pa3
    scratch[20] = pa4
    scratch[21] = pa5
    scratch[22] = pa6
    scratch[23] = pa7
    scratch[24] = pb0
    scratch[25] = pb1
    scratch[26] = pb2
    scratch[27] = pb3
    scratch[28] = pb4
    scratch[29] = pb5
    scratch[30] = pb6
    scratch[31] = pb7
    va = 0.0
    vb = 0.0
    for t in range(8):
        va += scratch[t]
        vb += scratch[8 + t]
    return va, vb


def trunc_value(order, pi, m, e, k, want_tk, P, M):
    """E[T_K] (want_tk) or E[D_K] by a forward pass over success counts capped at K.

    P[c], M[c] (scratch, length >= k + 1): probability of c successes so far and
    E[elapsed time; c successes]; state K is absorbing (the server stopped). Same recursion as
    `objectives._truncated_pass`, done in place from the top state down.
    """
    n = order.shape[0]
    for c in range(k + 1):
        P[c] = 0.0
        M[c] = 0.0
    P[0] = 1.0
    dk = 0.0
    for y in range(n):
        i = order[y]
        p = pi[i]
        q = 1.0 - p
        mi = m[i]
        ei = e[i]
        for c in range(k):
            dk += p * (M[c] + mi * P[c])
        P[k] += p * P[k - 1]
        M[k] += p * (M[k - 1] + mi * P[k - 1])
        for c in range(k - 1, 0, -1):
            pc = P[c]
            P[c] = q * pc + p * P[c - 1]
            M[c] = q * M[c] + ei * pc + p * (M[c - 1] + mi * P[c - 1])
        M[0] = q * M[0] + ei * P[0]
        P[0] = q * P[0]
    if want_tk:
        tk = 0.0
        for c in range(k + 1):
            tk += M[c]
        return tk
    return dk


def mc_accumulate(order, X, S, lo, hi, kind, k, stats):
    """Add scenarios lo..hi-1 to the running (count, mean, M2) of one order (Welford).

    X[s, j]: realized size of job j in scenario s; S[s, j] != 0: job j succeeds. The realized
    objective: A = sum of successful completion times; B = that sum / number of successes (0 if
    none); TK = time of the K-th success (makespan if fewer); DK = sum over the first K successes.
    """
    n = order.shape[0]
    cnt = stats[0]
    mean = stats[1]
    m2 = stats[2]
    for s in range(lo, hi):
        t = 0.0
        tot = 0.0
        succ = 0
        for y in range(n):
            j = order[y]
            t += X[s, j]
            if S[s, j] != 0:
                succ += 1
                if kind <= 1:
                    tot += t
                elif kind == 2:
                    if succ == k:
                        break
                else:
                    tot += t
                    if succ == k:
                        break
        if kind == 1:
            v = tot / succ if succ > 0 else 0.0
        elif kind == 2:
            v = t
        else:
            v = tot
        cnt += 1.0
        d = v - mean
        mean += d / cnt
        m2 += d * (v - mean)
    stats[0] = cnt
    stats[1] = mean
    stats[2] = m2


def best_insertion(order, T1, T2, out):
    """Best insertion move of one order for a factor-form objective, all n(n-1) moves in O(n^2 r).

    Moving the job i at position a behind the jobs at a+1..b changes the value by
    sum_x D(i, o_x) with D(i, j) = W[j, i] - W[i, j] and W[j, i] = sum_r T2[j, r] T1[i, r];
    moving it in front of b..a-1 changes it by -sum_x D(i, o_x). Writes out[0] = best change
    (0 if none improves), out[1] = a, out[2] = b.
    """
    n = order.shape[0]
    r = T1.shape[1]
    best = 0.0
    ba = 0
    bb = 0
    for a in range(n):
        i = order[a]
        acc = 0.0
        for b in range(a + 1, n):
            j = order[b]
            d = 0.0
            for t in range(r):
                d += T2[j, t] * T1[i, t] - T2[i, t] * T1[j, t]
            acc += d
            if acc < best:
                best = acc
                ba = a
                bb = b
        acc = 0.0
        for b in range(a - 1, -1, -1):
            j = order[b]
            d = 0.0
            for t in range(r):
                d += T2[j, t] * T1[i, t] - T2[i, t] * T1[j, t]
            acc -= d
            if acc < best:
                best = acc
                ba = a
                bb = b
    out[0] = best
    out[1] = ba
    out[2] = bb


def insertion_sweep(order, pos, seq, T1, T2, thr, out):
    """One first-improvement sweep: each job in turn (in the order at the sweep's start) moves
    to its best position if that lowers the value by more than `thr`. O(n^2 r) per sweep.

    Modifies `order` in place; pos and seq are int scratch of length n. Writes out[0] = total
    change of the value, out[1] = number of moves made.
    """
    n = order.shape[0]
    r = T1.shape[1]
    for x in range(n):
        seq[x] = order[x]
        pos[order[x]] = x
    total = 0.0
    moves = 0
    for idx in range(n):
        i = seq[idx]
        a = pos[i]
        best = -thr
        bb = a
        acc = 0.0
        for b in range(a + 1, n):
            j = order[b]
            d = 0.0
            for t in range(r):
                d += T2[j, t] * T1[i, t] - T2[i, t] * T1[j, t]
            acc += d
            if acc < best:
                best = acc
                bb = b
        acc = 0.0
        for b in range(a - 1, -1, -1):
            j = order[b]
            d = 0.0
            for t in range(r):
                d += T2[j, t] * T1[i, t] - T2[i, t] * T1[j, t]
            acc -= d
            if acc < best:
                best = acc
                bb = b
        if bb != a:
            if bb > a:
                for x in range(a, bb):
                    order[x] = order[x + 1]
                    pos[order[x]] = x
            else:
                for x in range(a, bb, -1):
                    order[x] = order[x - 1]
                    pos[order[x]] = x
            order[bb] = i
            pos[i] = bb
            total += best
            moves += 1
    out[0] = total
    out[1] = moves


def row_problem(row, n, seen, stamp):
    """0 if `row` is a permutation of 0..n-1, 1 + j if it holds j outside 0..n-1 (j clipped to
    a code), -1 - j if job j is repeated. `seen` (int, length n) is reused across rows: a job is
    seen in this row when seen[j] == stamp."""
    for x in range(row.shape[0]):
        j = row[x]
        if j < 0 or j >= n:
            return 1
        if seen[j] == stamp:
            return -1 - j
        seen[j] = stamp
    return 0
