"""`lpcut`: the exact linear-ordering engine by HiGHS, triangle cuts separated on the LP first.

One module per concept: `options` (the user's options and the engine's tuning, light to
import), `lp_model` (the HiGHS LP and its sound dual bound), `separation`, `primal` (the best
order and its searches), `rounds` (the LP rounds), `mip` (the MIP hand-off) and `model` (the
block model that runs them, and `lpcut_factory`). The sojourn objectives A and B reach it
through `solvers.sojourn.exact_lpcut`; LOLIB matrices and PACE graphs through
`lop.methods`.

Routes (option `route`, per preference block): "packing" is step 0 then steps 1-3; "lp" is
steps 1-3; "full" writes every triangle row and goes to the MIP (step 3); "auto" (the default)
picks per block in `HighsCutModel.pick_route` from the block's starting order: the packing when
its cost exceeds the pairwise minimum by at most `packing_max_deficit` of it (the loose packing
masters then reach the closing slack), else the LP rounds; LP rounds that stall
(`lp_stall_rounds`) hand over to the MIP. The LP rounds run by warm-started dual simplex on blocks
whose deficit share exceeds `simplex_min_deficit`, else by the interior point (`pick_lp_solver`).
The route each block took is in `stats["routes"]`.
Whatever the route, a block's bound is the Lagrangian or packing bound computed here from
duals (or HiGHS's MIP dual bound), and the status is `certify`'s.

0. (route packing) The same LP's dual as a packing of preference cycles, by
   column generation from the incumbent, first improved by an iterated insertion search over
   rotations of it (`search_start`; `lop.cyclepack`, theory/sojourn/
   packing.py): a block whose packing bound meets the best order is proven without
   triangle rows; otherwise its bound and best order carry over to step 1 with the time left.

Per block (see `lop.core`): variables x_ab in [0, 1] (a < b), objective
sum (W[a,b] - W[b,a]) x_ab / s + const with s = max |W[a,b] - W[b,a]| (so HiGHS's absolute
tolerances act on numbers of order 1, not 1e-5), and triangle rows for chosen triples.
1. LP rounds (interior point without crossover, each LP from scratch; or dual simplex from the
   previous round's basis, `pick_lp_solver`): solve the LP, offer its
   rounded order (jobs by LP 'before' mass, then insertion descent) as the incumbent, and add
   violated triangle rows among those tight at the incumbent order (a before b before c), up to
   `per_pair` per pair the LP reverses. By complementary slackness only those rows can carry the
   dual certificate of an optimal incumbent; when none is violated, every violated triangle is
   separated. Rows slack at the LP optimum are deleted (until the rounds stall). Every row is
   a valid inequality of the ordering polytope, so no integer order is cut off.
2. A sound bound from the LP duals whatever HiGHS's tolerances: for y >= 0 on rows A x <= r
   and 0 <= x <= 1, d x >= sum_j min(0, (d + A^T y)_j) - y r (weak duality; theory/sojourn/
   cycles.py has the pair structure, `lagrangian_value` the arithmetic and a rigorous margin
   for its floating-point error). The block is
   proven when this bound is within the block's slack of its incumbent, with no MIP: its share
   of nine tenths of the proof tolerance (`result.PROOF_TOL`: the status rule of `certify`) of
   a floor under the whole value, B's constant term included (`core.block_slacks`).
3. Otherwise the MIP on the cut model, started from the best order, with an absolute gap below
   the proof tolerance; lazy rounds as in `core.solve_block` if the integer solution still has a
   3-cycle. Every HiGHS run gets only the time left (its time limit and a wall-clock interrupt
   callback); a MIP that its root LP alone would push past the limit is skipped.
"""
