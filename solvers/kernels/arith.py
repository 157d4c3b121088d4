"""Per-order arithmetic, written once as plain Python and compiled for both targets.

`solvers.kernels.cpu` compiles these with `numba.njit` and `solvers.kernels.gpu` with
`numba.cuda.jit(device=True)`; they can also run as plain Python (tiny inputs, and the CUDA
simulator). Rules that keep them valid on both targets: no allocation (callers pass scratch
arrays), no exceptions, only scalar arithmetic and array indexing, no calls between them.

Objective codes: 0 = A, 1 = B, 2 = TK, 3 = DK.
"""

from __future__ import annotations

KIND_CODES = {"A": 0, "B": 1, "TK": 2, "DK": 3}
SCRATCH = 64  # floats of scratch that `lop_value` needs


def lop_value(order, T1w, T2w, T1n, T2n, scratch):
    """sum_r sum_y T1[o_y, r] * sum_{x<y} T2[o_x, r] for one order (the factor form of A, B).

    The factor columns come in blocks: T1w, T2w (blocks of 32, shape (b32, n, 32)) and T1n,
    T2n (blocks of 8, shape (b8, n, 8)), zero-padded (see `LopTables.blocked`). The lanes of a
    block are written out as scalars with constant column indices so that LLVM's SLP vectorizer
    packs them into SIMD registers on the CPU and a GPU thread keeps them in registers; the
    scratch stores after a block seed the vectorizer and fix the order of the final sum.
    """
    n = order.shape[0]
    total = 0.0
    for blk in range(T1w.shape[0]):
        T1 = T1w[blk]
        T2 = T2w[blk]
        s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = 0.0
        s8 = s9 = s10 = s11 = s12 = s13 = s14 = s15 = 0.0
        s16 = s17 = s18 = s19 = s20 = s21 = s22 = s23 = 0.0
        s24 = s25 = s26 = s27 = s28 = s29 = s30 = s31 = 0.0
        p0 = p1 = p2 = p3 = p4 = p5 = p6 = p7 = 0.0
        p8 = p9 = p10 = p11 = p12 = p13 = p14 = p15 = 0.0
        p16 = p17 = p18 = p19 = p20 = p21 = p22 = p23 = 0.0
        p24 = p25 = p26 = p27 = p28 = p29 = p30 = p31 = 0.0
        for y in range(n):
            o = order[y]
            s0 += T1[o, 0] * p0
            s1 += T1[o, 1] * p1
            s2 += T1[o, 2] * p2
            s3 += T1[o, 3] * p3
            s4 += T1[o, 4] * p4
            s5 += T1[o, 5] * p5
            s6 += T1[o, 6] * p6
            s7 += T1[o, 7] * p7
            s8 += T1[o, 8] * p8
            s9 += T1[o, 9] * p9
            s10 += T1[o, 10] * p10
            s11 += T1[o, 11] * p11
            s12 += T1[o, 12] * p12
            s13 += T1[o, 13] * p13
            s14 += T1[o, 14] * p14
            s15 += T1[o, 15] * p15
            s16 += T1[o, 16] * p16
            s17 += T1[o, 17] * p17
            s18 += T1[o, 18] * p18
            s19 += T1[o, 19] * p19
            s20 += T1[o, 20] * p20
            s21 += T1[o, 21] * p21
            s22 += T1[o, 22] * p22
            s23 += T1[o, 23] * p23
            s24 += T1[o, 24] * p24
            s25 += T1[o, 25] * p25
            s26 += T1[o, 26] * p26
            s27 += T1[o, 27] * p27
            s28 += T1[o, 28] * p28
            s29 += T1[o, 29] * p29
            s30 += T1[o, 30] * p30
            s31 += T1[o, 31] * p31
            p0 += T2[o, 0]
            p1 += T2[o, 1]
            p2 += T2[o, 2]
            p3 += T2[o, 3]
            p4 += T2[o, 4]
            p5 += T2[o, 5]
            p6 += T2[o, 6]
            p7 += T2[o, 7]
            p8 += T2[o, 8]
            p9 += T2[o, 9]
            p10 += T2[o, 10]
            p11 += T2[o, 11]
            p12 += T2[o, 12]
            p13 += T2[o, 13]
            p14 += T2[o, 14]
            p15 += T2[o, 15]
            p16 += T2[o, 16]
            p17 += T2[o, 17]
            p18 += T2[o, 18]
            p19 += T2[o, 19]
            p20 += T2[o, 20]
            p21 += T2[o, 21]
            p22 += T2[o, 22]
            p23 += T2[o, 23]
            p24 += T2[o, 24]
            p25 += T2[o, 25]
            p26 += T2[o, 26]
            p27 += T2[o, 27]
            p28 += T2[o, 28]
            p29 += T2[o, 29]
            p30 += T2[o, 30]
            p31 += T2[o, 31]
        scratch[0] = s0
        scratch[1] = s1
        scratch[2] = s2
        scratch[3] = s3
        scratch[4] = s4
        scratch[5] = s5
        scratch[6] = s6
        scratch[7] = s7
        scratch[8] = s8
        scratch[9] = s9
        scratch[10] = s10
        scratch[11] = s11
        scratch[12] = s12
        scratch[13] = s13
        scratch[14] = s14
        scratch[15] = s15
        scratch[16] = s16
        scratch[17] = s17
        scratch[18] = s18
        scratch[19] = s19
        scratch[20] = s20
        scratch[21] = s21
        scratch[22] = s22
        scratch[23] = s23
        scratch[24] = s24
        scratch[25] = s25
        scratch[26] = s26
        scratch[27] = s27
        scratch[28] = s28
        scratch[29] = s29
        scratch[30] = s30
        scratch[31] = s31
        scratch[32] = p0
        scratch[33] = p1
        scratch[34] = p2
        scratch[35] = p3
        scratch[36] = p4
        scratch[37] = p5
        scratch[38] = p6
        scratch[39] = p7
        scratch[40] = p8
        scratch[41] = p9
        scratch[42] = p10
        scratch[43] = p11
        scratch[44] = p12
        scratch[45] = p13
        scratch[46] = p14
        scratch[47] = p15
        scratch[48] = p16
        scratch[49] = p17
        scratch[50] = p18
        scratch[51] = p19
        scratch[52] = p20
        scratch[53] = p21
        scratch[54] = p22
        scratch[55] = p23
        scratch[56] = p24
        scratch[57] = p25
        scratch[58] = p26
        scratch[59] = p27
        scratch[60] = p28
        scratch[61] = p29
        scratch[62] = p30
        scratch[63] = p31
        for t in range(32):
            total += scratch[t]
    for blk in range(T1n.shape[0]):
        T1 = T1n[blk]
        T2 = T2n[blk]
        s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = 0.0
        p0 = p1 = p2 = p3 = p4 = p5 = p6 = p7 = 0.0
        for y in range(n):
            o = order[y]
            s0 += T1[o, 0] * p0
            s1 += T1[o, 1] * p1
            s2 += T1[o, 2] * p2
            s3 += T1[o, 3] * p3
            s4 += T1[o, 4] * p4
            s5 += T1[o, 5] * p5
            s6 += T1[o, 6] * p6
            s7 += T1[o, 7] * p7
            p0 += T2[o, 0]
            p1 += T2[o, 1]
            p2 += T2[o, 2]
            p3 += T2[o, 3]
            p4 += T2[o, 4]
            p5 += T2[o, 5]
            p6 += T2[o, 6]
            p7 += T2[o, 7]
        scratch[0] = s0
        scratch[1] = s1
        scratch[2] = s2
        scratch[3] = s3
        scratch[4] = s4
        scratch[5] = s5
        scratch[6] = s6
        scratch[7] = s7
        scratch[32] = p0
        scratch[33] = p1
        scratch[34] = p2
        scratch[35] = p3
        scratch[36] = p4
        scratch[37] = p5
        scratch[38] = p6
        scratch[39] = p7
        for t in range(8):
            total += scratch[t]

    return total


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
