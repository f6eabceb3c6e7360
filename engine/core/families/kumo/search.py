"""Optimal search: the expected number of information actions and the oracle policy.

The yardstick is the recursion of ``domain-model.md`` ("Optimal search") as the original KUMO
release computes it (``OracleSearchEngine`` in its ``env/engine.py``). A state is the pair
(remaining truths ``T``, remaining actions ``A``):

* ``E(T, A) = 0`` when ``|T| <= 1``, when ``A`` is empty, or when some truth of ``T`` is ruled
  out by no state of any action of ``A``;
* otherwise ``E(T, A) = 1 + min over a in A of sum_s P(s) * E(T - R_s, A - {a})``, where ``s``
  runs over *all* states of ``a`` in the domain's order, ``R_s`` is what ``s`` rules out,
  ``W(s) = |T - R_s|`` and ``P(s) = W(s) / (sum of W + 1e-9)``.

Results equal the reference's bit for bit, because the argmin is decided by exact float
comparisons. So the reference's arithmetic is kept: ``P(s)`` is ``W(s) / (float(sum W) +
1e-9)``, the sum over states is accumulated left to right in state order starting from 0, and
``E`` is ``min + 1``. The argmin is the first action, in the order the actions are given, whose
sum equals the minimum (the reference replaces its candidate only on a strictly smaller sum).
The reference iterates a Python ``set`` of action names instead, whose order depends on
``PYTHONHASHSEED``; that only matters between exactly equal sums, and we use the order of the
instance's action list, so our oracle path is the reference's for the hash seeds whose set
order agrees with the list on the tied actions.

Speed comes from evaluating the same recursion differently, never from approximating it:

1. Truths and actions are bitmasks and every state's rule-out set is restricted to the
   instance's truths, so ``W(s)`` is a popcount. What the actions look like from one ``T``
   (their children, ``P(s)``, twins) is computed once per ``T`` (:class:`_View`).
2. Actions that rule out nothing in ``T`` ("idle") are dropped. This changes neither ``E`` nor
   the argmin: by induction on ``|A|``, an idle ``u`` stays idle in every descendant, so every
   other candidate's sum is the same with or without ``u``, and ``u``'s own sum is
   ``E(T, A - {u})`` times ``sum P(s) < 1`` (the ``1e-9`` term), i.e. almost exactly 1 more
   than the best sum, never equal to it.
3. ``E(T, A)`` depends only on ``T`` and on the multiset of the useful actions' states
   restricted to ``T`` (as ordered tuples). Actions with equal tuples ("twins") have
   bit-identical sums, so only the first one present is tried, and a node (the memo key)
   stores a group of twins as its first members.
4. Children that are base cases add exactly ``0.0`` and are left out of every sum: a child
   with at most one truth, and a child keeping a truth that no other remaining action can
   rule out. A node with a candidate whose children are all base cases is exactly ``1``.
5. Nodes live for the lifetime of one solver (one call of :func:`solve`,
   :func:`expected_actions` or :func:`best_action`); nothing is cached across calls. A node
   keeps only its exact value or a floor, because a solve can leave hundreds of thousands of
   nodes; its candidates are rebuilt from the view each time it is searched.
6. Branch and bound with exact lower bounds. A non-base child is worth at least 1 (the
   *one-level* bound of a candidate) and at least 1 plus its own smallest one-level bound,
   which every node gets when it is created (the *two-level* bound); a search that fails to
   beat a cutoff leaves a higher floor. Replacing child values by such bounds and summing
   with the same float operations in the same order can only give a smaller or equal float
   (IEEE rounding is monotone), so a candidate whose bound reaches the best sum is dropped.
   Nodes are searched with a cutoff (see :class:`_Solver`). The argmin (:meth:`_Solver.best`)
   first computes the minimum, then takes the first action in the given order whose exact
   sum equals it, pruning a candidate only when its bound *exceeds* the minimum.
7. Heuristics decide only the order of work, never a result: candidates are tried in the
   order of their two-level bound plus a little for every truth their children keep (this
   puts the minimum first far more often than the one-level bound alone), and a candidate's
   children are asked in rounds for equal shares of the gap to the best sum, smallest child
   first (a child that clears its share answers with a floor, cheaper than its exact value).

Two implementations of this one algorithm give identical results (the test suite runs every
search test against both and against the literal recursion):

* ``engine/core/families/kumo/_fastsearch.c``, compiled by ``pip install -e .`` (``setup.py``),
  which runs
  whenever it is built and the instance has at most 64 truths and 64 actions. It does the same
  work about 35 times faster than the Python solver.
* :class:`_Solver` in this module, used otherwise (no C compiler at install time, wider
  instances, or ``USE_NATIVE = False``).

Cost: the search is exact, hence exponential in the worst case. On Hard instances (12 truths,
16 actions) of the original KUMO medical domain it needs a few thousand nodes; on the shipped
domains, whose states rule out fewer of the instance's truths, from thousands to about a million
(``benchmarks/optimal_search.py`` prints the figures).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from engine.core.families.kumo.types import Domain, Instance

try:
    # Built next to its source by `pip install -e .` (setup.py); see _fastsearch.c.
    from engine.core.families.kumo import _fastsearch
except ImportError:  # no C compiler at install time: the Python solver gives the same results
    _fastsearch = None

# Whether to use the compiled solver when it is built. The test suite runs both solvers.
USE_NATIVE = True

# The smoothing term of the reference's state probabilities: P(s) = W(s) / (sum W + 1e-9).
SMOOTHING = 1e-9


@dataclass(frozen=True)
class OptimalResult:
    """What the optimal search says about one instance.

    ``expected_actions`` is ``E(truths, actions)`` at the start; ``oracle_actions`` counts the
    information actions the oracle policy takes on the real instance, in ``oracle_path`` order
    (the final answer is not counted).
    """

    expected_actions: float
    oracle_actions: int
    oracle_path: tuple[str, ...]


def solve(domain: Domain, instance: Instance) -> OptimalResult:
    """Compute the expected action count of an instance and play the oracle policy on it.

    1. Encode the instance's truths and actions as bitmasks (one solver, one memo).
    2. ``E`` of the full truth and action sets is the expected count.
    3. Until a base case holds: take the argmin action, look up the state its observation
       belongs to, remove what that state rules out from ``T`` and the action from ``A``.

    Raises ``KeyError`` if an action is not in the domain or an observation matches no state.
    """
    encoding = _Encoding(domain, instance.truths, instance.actions)
    observed = []
    for name in encoding.action_names:
        action = domain.action(name)
        state = action.state_for(instance.observations[name])
        observed.append(next(i for i, candidate in enumerate(action.states) if candidate is state))
    expected, path = _search(encoding, observed)
    return OptimalResult(
        expected_actions=expected, oracle_actions=len(path), oracle_path=tuple(path)
    )


def solve_observed(
    domain: Domain, instance: Instance, observed: Mapping[str, int | None]
) -> OptimalResult:
    """:func:`solve` with each action's observed state given by index, ``None`` for none.

    For instances of the original KUMO release read in KUMO-compatible mode
    (``engine.core.families.kumo.kumo_release``): there an observation may match no state, and the
    original oracle then rules nothing out. The values are the same as :func:`solve`'s
    whenever every action has a state.
    """
    encoding = _Encoding(domain, instance.truths, instance.actions)
    indices = [observed.get(name) for name in encoding.action_names]
    expected, path = _search(encoding, indices)
    return OptimalResult(
        expected_actions=expected, oracle_actions=len(path), oracle_path=tuple(path)
    )


def expected_actions(domain: Domain, truths: Iterable[str], actions: Iterable[str]) -> float:
    """``E(T, A)``: the expected number of information actions still needed."""
    return _search(_Encoding(domain, truths, actions), None)[0]


def best_action(domain: Domain, truths: Iterable[str], actions: Iterable[str]) -> str | None:
    """The oracle's next action from any game state, or ``None`` when a base case holds.

    Among actions whose expected sums are exactly equal, the one listed first wins.
    """
    path = _search(_Encoding(domain, truths, actions), None)[1]
    return path[0] if path else None


def _search(encoding: _Encoding, observed: Sequence[int | None] | None) -> tuple[float, list[str]]:
    """``E`` at the start and the oracle's actions, with whichever solver runs.

    With ``observed`` (the index of each action's observed state) the path is the oracle's
    whole play; without, it is the argmin of the start alone (empty at a base case). An
    index of ``None`` (no state matched; KUMO-compatible instances only) rules nothing out
    and is played by the Python solver, which gives the same values.
    """
    if _use_native(encoding) and (observed is None or None not in observed):
        expected, indices = _fastsearch.search(
            encoding.state_masks, encoding.all_truths, encoding.all_actions, observed
        )
        return expected, [encoding.action_names[index] for index in indices]
    solver = _Solver(encoding)
    truths, actions = solver.all_truths, solver.all_actions
    expected = solver.value(truths, actions)
    path: list[str] = []
    while (index := solver.best(truths, actions)) is not None:
        path.append(solver.action_names[index])
        if observed is None:
            break
        state = observed[index]
        if state is not None:
            truths &= ~solver.state_masks[index][state]
        actions &= ~(1 << index)
    return expected, path


def reference_expected_actions(
    domain: Domain, truths: Iterable[str], actions: Iterable[str]
) -> float:
    """A literal, slow evaluation of the recursion, for tests on small cases.

    It works on sets of names, tries every action (idle ones included) in the given order and
    every state in the domain's order, with no pruning. Like the original it memoises values
    on (truth set, action set), which cannot change them.
    """
    return _reference_evaluate(domain, truths, actions)[0]


def reference_best_action(
    domain: Domain, truths: Iterable[str], actions: Iterable[str]
) -> str | None:
    """The argmin of :func:`reference_expected_actions`: first strictly smaller sum wins."""
    return _reference_evaluate(domain, truths, actions)[1]


def _reference_evaluate(
    domain: Domain, truths: Iterable[str], actions: Iterable[str]
) -> tuple[float, str | None]:
    order = list(dict.fromkeys(actions))
    memo: dict[tuple[frozenset[str], frozenset[str]], float] = {}

    def is_base(remaining: frozenset[str], available: list[str]) -> bool:
        if len(remaining) <= 1 or not available:
            return True
        return any(
            not any(t in state.rules_out for a in available for state in domain.action(a).states)
            for t in remaining
        )

    def candidate(remaining: frozenset[str], available: list[str], name: str) -> float:
        states = domain.action(name).states
        rest = [a for a in available if a != name]
        weights = [len(remaining - state.rules_out) for state in states]
        total = sum(weights) + SMOOTHING
        expected = 0.0
        for weight, state in zip(weights, states, strict=True):
            expected += value(remaining - state.rules_out, rest) * (weight / total)
        return expected

    def value(remaining: frozenset[str], available: list[str]) -> float:
        if is_base(remaining, available):
            return 0.0
        key = (remaining, frozenset(available))
        if key not in memo:
            memo[key] = min(candidate(remaining, available, a) for a in available) + 1
        return memo[key]

    remaining = frozenset(truths)
    if is_base(remaining, order):
        return 0.0, None
    best_name, best_sum = None, float("inf")
    for name in order:
        current = candidate(remaining, order, name)
        if current < best_sum:
            best_name, best_sum = name, current
    return best_sum + 1, best_name


class _View:
    """What the actions look like from one set of remaining truths ``T`` (built once per ``T``).

    For every action ``j`` that rules out something in ``T`` (bit ``j`` of ``useful``):

    * ``hits[j]``: what it can rule out in ``T``;
    * ``kids[j]``: ``(P(s), T - R_s, hits[j] & (T - R_s))`` for its states in state order,
      leaving out children with at most one truth (they are worth exactly 0);
    * ``full[j]``: the sum of those ``P(s)``: its bound when none of the kids is a base case,
      and ``parts[j]`` its :func:`_parts` then (computed when first needed);
    * ``twins[j]``: the actions whose states rule out exactly the same truths of ``T`` in the
      same order (``j`` included).

    ``classes`` lists each group of two or more twins with, for every ``k``, the mask of its
    first ``k`` members; ``coverers`` the distinct masks of actions able to rule out each truth.
    """

    __slots__ = ("useful", "hits", "kids", "full", "parts", "twins", "classes", "coverers")

    def __init__(self, solver: _Solver, truths: int) -> None:
        count = truths.bit_count()
        size = len(solver.action_names)
        self.useful = 0
        self.hits = [0] * size
        self.kids: list[tuple[tuple[float, int, int], ...]] = [()] * size
        self.full = [0.0] * size
        self.parts: list[_Parts | None] = [None] * size
        self.twins = [0] * size
        groups: dict[tuple[int, ...], int] = {}
        for index, (cover, masks) in enumerate(zip(solver.covers, solver.state_masks, strict=True)):
            hit = cover & truths
            if not hit:
                continue
            bit = 1 << index
            self.useful |= bit
            self.hits[index] = hit
            signature = tuple([mask & truths for mask in masks])
            groups[signature] = groups.get(signature, 0) | bit
            # The reference's arithmetic: P(s) = W(s) / (float(sum W) + 1e-9).
            weights = [count - mask.bit_count() for mask in signature]
            total = sum(weights) + SMOOTHING
            kids = []
            bound = 0.0
            for weight, mask in zip(weights, signature, strict=True):
                if weight > 1:
                    probability = weight / total
                    bound += probability
                    child = truths & ~mask
                    kids.append((probability, child, hit & child))
            self.kids[index] = tuple(kids)
            self.full[index] = bound
        classes = []
        for group in groups.values():
            members = _bits(group)
            for index in members:
                self.twins[index] = group
            if len(members) > 1:
                prefixes = [0]
                for index in members:
                    prefixes.append(prefixes[-1] | 1 << index)
                classes.append((group, tuple(prefixes)))
        self.classes = tuple(classes)
        coverers = solver.truth_coverers
        self.coverers = tuple({coverers[index] for index in _bits(truths)})


# The parts of a candidate that depend only on its kids: their P(s) and truth masks in state
# order, the order in which to refine them (smallest kid first), and its trial-order term.
_Parts = tuple[tuple[float, ...], tuple[int, ...], tuple[int, ...], float]


def _parts(kids: Sequence[tuple[float, int, int]]) -> _Parts:
    probabilities = tuple([kid[0] for kid in kids])
    truths = tuple([kid[1] for kid in kids])
    sizes = [mask.bit_count() for mask in truths]
    refine = sorted(range(len(truths)), key=lambda k: (sizes[k], -probabilities[k], k))
    extra = 0.0
    for probability, size in zip(probabilities, sizes, strict=True):
        extra += probability * (size - 2)
    return probabilities, truths, tuple(refine), _PRIORITY_PER_TRUTH * extra


class _Node:
    """A node ``(T, useful actions)`` with each group of twins represented by its first members.

    ``key`` is the truth mask with the useful actions above it (see :meth:`_Solver._node`).
    ``floor`` is a number the node's minimum sum is known not to undercut, or the minimum sum
    itself once ``exact``; ``E`` is ``floor + 1``. Nothing else is kept: a solve can leave
    hundreds of thousands of nodes, and a node's candidates are quick to rebuild when it is
    searched again.
    """

    __slots__ = ("key", "floor", "exact")

    def __init__(self, key: int, floor: float) -> None:
        self.key = key
        self.floor = floor
        # A candidate whose kids are all base cases sums to exactly 0.0, the least possible.
        self.exact = floor == 0.0


# A candidate: [action index, the _Parts of its non-base kids, the sum of their P(s) (its
# bound with every kid counted as worth 1), the actions left after it, its kids' nodes once
# looked up]. A list, so that the nodes can be filled in.
_Entry = list


class _Encoding:
    """An instance's truths and actions as bitmasks, for either solver.

    Bit ``i`` of a truth mask is ``truth_names[i]``; bit ``j`` of an action mask is
    ``action_names[j]``. ``state_masks[j]`` holds, in the domain's state order, the truths each
    state of action ``j`` rules out (restricted to these truths). Raises ``KeyError`` if an
    action is not in the domain.
    """

    def __init__(self, domain: Domain, truths: Iterable[str], actions: Iterable[str]) -> None:
        self.truth_names = tuple(dict.fromkeys(truths))
        self.action_names = tuple(dict.fromkeys(actions))
        bits = {name: 1 << i for i, name in enumerate(self.truth_names)}
        self.state_masks: list[tuple[int, ...]] = [
            tuple(
                sum(bits[t] for t in state.rules_out if t in bits)
                for state in domain.action(name).states
            )
            for name in self.action_names
        ]
        self.all_truths = (1 << len(self.truth_names)) - 1
        self.all_actions = (1 << len(self.action_names)) - 1


def _use_native(encoding: _Encoding) -> bool:
    """Whether the compiled solver runs: it is built, enabled, and the masks fit 64 bits."""
    return (
        USE_NATIVE
        and _fastsearch is not None
        and len(encoding.truth_names) <= 64
        and len(encoding.action_names) <= 64
    )


class _Solver:
    """Bitmask evaluation of the recursion for one universe of truths and actions.

    Bit ``i`` of a truth mask is ``truth_names[i]``; bit ``j`` of an action mask is
    ``action_names[j]``. ``state_masks[j]`` holds, in the domain's state order, the truths each
    state of action ``j`` rules out (restricted to this universe); ``covers[j]`` is their union
    and ``truth_coverers[i]`` the actions able to rule out truth ``i``.

    ``E`` is the same for all ``(T, A)`` that map to one :class:`_Node`. Nodes are searched with
    a *cutoff*: the caller only needs the minimum sum of a node if it is below the cutoff, and
    otherwise a lower bound ("floor") that is at least the cutoff.
    """

    def __init__(self, encoding: _Encoding) -> None:
        self.truth_names = encoding.truth_names
        self.action_names = encoding.action_names
        self.state_masks = encoding.state_masks
        self.covers = [_union(masks) for masks in self.state_masks]
        self.truth_coverers = [
            sum(1 << j for j, cover in enumerate(self.covers) if cover >> i & 1)
            for i in range(len(self.truth_names))
        ]
        self.all_truths = (1 << len(self.truth_names)) - 1
        self.all_actions = (1 << len(self.action_names)) - 1
        # A node's key is its truth mask with its useful actions above it.
        self._shift = len(self.truth_names)
        self._views: dict[int, _View] = {}
        self._nodes: dict[int, _Node] = {}

    def value(self, truths: int, actions: int) -> float:
        """``E(truths, actions)``, exactly as the reference computes it."""
        useful = self._useful(truths, actions)
        if useful is None:
            return 0.0
        return self._value(self._node(truths, useful), _INFINITY)[0]

    def best(self, truths: int, actions: int) -> int | None:
        """Index of the argmin action, or ``None`` when ``(truths, actions)`` is a base case.

        The node's minimum sum is computed first; then the first action, in the given order,
        whose sum equals it is the argmin. Sums are never below the minimum, so a candidate
        whose bound exceeds it is skipped, and the others are pruned only on a bound that
        exceeds it (a sum equal to the minimum is a tie, settled by the order).
        """
        useful = self._useful(truths, actions)
        if useful is None:
            return None
        node = self._node(truths, useful)
        self._value(node, _INFINITY)
        minimum = node.floor
        # The actual useful set, not its node: the answer must be an action that is present,
        # and among twins the first present one.
        for entry in self._entries(truths, useful):
            if entry[2] > minimum:
                continue
            total, complete = self._sum(entry, minimum, strict=True)
            if complete and total == minimum:
                return entry[0]
        raise AssertionError("no candidate reaches the minimum sum")

    def _useful(self, truths: int, actions: int) -> int | None:
        """The useful actions of ``(truths, actions)``, or ``None`` for a base case.

        Useful actions rule out something in ``truths`` with some state; the node is a base case
        when at most one truth is left or the useful actions cannot rule out every truth.
        Dropping the other ("idle") actions changes neither ``E`` nor the argmin: see the
        module docstring.
        """
        if truths.bit_count() <= 1:
            return None
        view = self._views.get(truths)
        if view is None:
            view = self._views[truths] = _View(self, truths)
        useful = actions & view.useful
        for coverers in view.coverers:
            if not coverers & useful:
                return None
        return useful

    def _node(self, truths: int, actions: int) -> _Node:
        """The node of ``(truths, actions)``, which must not be a base case.

        A new node starts with the smallest one-level bound of its candidates as its floor.
        """
        view = self._views.get(truths)
        if view is None:
            view = self._views[truths] = _View(self, truths)
        useful = actions & view.useful
        for group, prefixes in view.classes:
            present = useful & group
            if present:
                useful = useful & ~group | prefixes[present.bit_count()]
        key = truths | useful << self._shift
        node = self._nodes.get(key)
        if node is None:
            node = self._nodes[key] = _Node(key, _smallest_bound(view, useful))
        return node

    def _entries(self, truths: int, useful: int) -> list[_Entry]:
        """The candidates of ``(truths, useful)``, in action order.

        A child ``T - R_s`` is a base case when at most one truth is left or when one of its
        truths is ruled out by no other useful action; a base child adds exactly ``0.0`` to the
        sum, so only the others ("kids") are kept. Of a group of twins only the first present
        is listed. Every kid is non-base, so it has a node.
        """
        view = self._views[truths]
        hits, twins, all_kids, full, all_parts = (
            view.hits,
            view.twins,
            view.kids,
            view.full,
            view.parts,
        )
        indices = _bits(useful)
        # Truths covered by at least two useful actions: a truth outside this set is covered by
        # one action only and becomes uncoverable once that action has been taken.
        once = twice = 0
        for index in indices:
            hit = hits[index]
            twice |= once & hit
            once |= hit
        entries = []
        for index in indices:
            if useful & twins[index] & ((1 << index) - 1):
                continue
            lonely = hits[index] & ~twice
            if lonely:
                kids = [kid for kid in all_kids[index] if not kid[2] & lonely]
                bound = 0.0
                for kid in kids:
                    bound += kid[0]
                parts = _parts(kids)
            else:
                bound = full[index]
                parts = all_parts[index]
                if parts is None:
                    parts = all_parts[index] = _parts(all_kids[index])
            entries.append([index, parts, bound, useful & ~(1 << index), None])
        return entries

    def _children(self, entry: _Entry) -> list[_Node]:
        """The nodes of a candidate's kids in state order (looked up once, then kept)."""
        children = entry[4]
        if children is None:
            rest = entry[3]
            node = self._node
            children = entry[4] = [node(truths, rest) for truths in entry[1][1]]
        return children

    def _value(self, node: _Node, cutoff: float) -> tuple[float, bool]:
        """``(E, True)`` if the node's minimum sum is below ``cutoff``, else ``(bound, False)``.

        The bound is a lower bound of ``E`` computed as ``floor + 1`` from a floor that is at
        least ``cutoff``, so the caller can prune on it.
        """
        if node.exact:
            return node.floor + 1, True
        floor = node.floor
        if floor >= cutoff:
            return floor + 1, False
        minimum, complete = self._minimum_sum(node, cutoff)
        if complete:
            node.floor = minimum
            node.exact = True
            return minimum + 1, True
        if minimum > floor:
            node.floor = floor = minimum
        return floor + 1, False

    def _ranked(
        self, entries: list[_Entry], cutoff: float
    ) -> tuple[list[tuple[float, int, float, _Entry]], float]:
        """The candidates whose two-level bound is below ``cutoff``, in trial order, and the
        smallest bound of the others (a floor for their sums).

        The one-level bound counts every kid as worth 1; only when it is below ``cutoff`` are
        the kids looked up for the two-level bound, which counts each at its floor + 1 (or its
        exact value). The trial order is the two-level bound plus a little for every truth the
        kids keep: the minimum comes first far more often than on either term alone, and an
        early minimum lets the bounds prune the other candidates sooner.
        """
        ranked = []
        floor = _INFINITY
        children_of = self._children
        for entry in entries:
            bound = entry[2]
            if bound < cutoff:
                parts = entry[1]
                bound = 0.0
                for probability, child in zip(parts[0], children_of(entry), strict=True):
                    bound += (child.floor + 1) * probability
                if bound < cutoff:
                    ranked.append((bound + parts[3], entry[0], bound, entry))
                    continue
            if bound < floor:
                floor = bound
        ranked.sort()
        return ranked, floor

    def _minimum_sum(self, node: _Node, cutoff: float) -> tuple[float, bool]:
        """The node's minimum sum if it is below ``cutoff``; else a floor >= ``cutoff``."""
        key = node.key
        entries = self._entries(key & self.all_truths, key >> self._shift)
        ranked, floor = self._ranked(entries, cutoff)
        best_sum = cutoff
        found = False
        for _, _, bound, entry in ranked:
            if bound >= best_sum:
                if bound < floor:
                    floor = bound
                continue
            total, complete = self._sum(entry, best_sum, strict=False)
            if complete:
                best_sum = total
                found = True
            elif total < floor:
                floor = total
        if found:
            return best_sum, True
        return floor, False

    def _sum(self, entry: _Entry, best_sum: float, *, strict: bool) -> tuple[float, bool]:
        """``(sum_s P(s) * E(child_s), True)``, or ``(lower bound, False)`` on a prune.

        1. With nothing to beat, evaluate the kids in state order.
        2. Otherwise, in rounds, ask every kid that is not yet exact for its value up to an
           equal share of the gap between the bound and ``best_sum``: a kid above its share
           returns a floor (cheaper than an exact value), one below it returns its exact value,
           and the next round shares what is left of the gap among fewer kids (smallest first).
        3. Stop as soon as the bound prunes the candidate (it reaches ``best_sum``, or exceeds
           it when ``strict``); once every kid is exact, the bound is the sum itself.

        Every bound is formed with the same float operations, in the same (state) order, as
        the reference's sum, with child values replaced by smaller or equal numbers, so it
        never exceeds the real sum (IEEE rounding is monotone).
        """
        probabilities, _, refine, _ = entry[1]
        children = self._children(entry)
        value = self._value
        if best_sum == _INFINITY:
            total = 0.0
            for probability, child in zip(probabilities, children, strict=True):
                total += value(child, _INFINITY)[0] * probability
            return total, True

        def prunes(bound: float) -> bool:
            return bound > best_sum or (not strict and bound >= best_sum)

        # The exact bound needs the whole ordered sum; a running estimate (off by rounding
        # only) tells when that is worth computing.
        near = best_sum - _NEAR * (1 + abs(best_sum))
        lows = [child.floor + 1 for child in children]
        estimate = 0.0
        for probability, low in zip(probabilities, lows, strict=True):
            estimate += low * probability
        if estimate >= near:
            bound = _ordered_sum(probabilities, lows)
            if prunes(bound):
                return bound, False
        unknown = [position for position in refine if not children[position].exact]
        while unknown:
            share = (best_sum - estimate) / sum([probabilities[position] for position in unknown])
            inexact = []
            for position in unknown:
                low = lows[position]
                cutoff = low + share - 1
                # Nudged up so that floors there reliably push the float bound past best_sum.
                cutoff += _CUTOFF_MARGIN * (1 + abs(cutoff))
                new, complete = value(children[position], cutoff)
                if new > low:
                    estimate += (new - low) * probabilities[position]
                    lows[position] = new
                if not complete:
                    inexact.append(position)
                if estimate >= near:
                    bound = _ordered_sum(probabilities, lows)
                    if prunes(bound):
                        return bound, False
            if inexact == unknown:
                # Every share was cleared but rounding kept the bound short: settle exactly.
                for position in inexact:
                    lows[position] = value(children[position], _INFINITY)[0]
                bound = _ordered_sum(probabilities, lows)
                if prunes(bound):
                    return bound, False
                inexact = []
            unknown = inexact
        bound = _ordered_sum(probabilities, lows)
        if prunes(bound):
            return bound, False
        return bound, True


def _smallest_bound(view: _View, useful: int) -> float:
    """The smallest one-level candidate bound of a node: a floor for its minimum sum.

    A candidate's one-level bound sums the ``P(s)`` of its non-base kids (each worth at least
    1); kids keeping a truth that only this candidate can rule out are base cases.
    """
    hits = view.hits
    indices = []
    once = twice = 0
    while useful:
        low = useful & -useful
        index = low.bit_length() - 1
        indices.append(index)
        hit = hits[index]
        twice |= once & hit
        once |= hit
        useful ^= low
    full, all_kids = view.full, view.kids
    smallest = _INFINITY
    for index in indices:
        lonely = hits[index] & ~twice
        if lonely:
            bound = 0.0
            for kid in all_kids[index]:
                if not kid[2] & lonely:
                    bound += kid[0]
        else:
            bound = full[index]
        if bound < smallest:
            smallest = bound
    return smallest


def _ordered_sum(probabilities: tuple[float, ...], values: list[float]) -> float:
    """``sum of value * P(s)`` accumulated in state order, exactly as the reference does."""
    total = 0.0
    for probability, value in zip(probabilities, values, strict=True):
        total += value * probability
    return total


_INFINITY = float("inf")
# Relative head-room for the cutoffs handed to children (see _Solver._sum); it only steers how
# much work a child does, never a result.
_CUTOFF_MARGIN = 1e-12
# How close (relatively) a running estimate of a bound must come to the best sum before the
# exact bound is computed; far above the rounding error of the estimate.
_NEAR = 1e-9
# Weight of the truths the kids keep in a candidate's trial order (see _Solver._ranked). Any
# value gives the same results; this one was among the fastest on the shipped domains.
_PRIORITY_PER_TRUTH = 1.0


def _bits(mask: int) -> list[int]:
    """Indices of the set bits of ``mask``, lowest first."""
    indices = []
    while mask:
        low = mask & -mask
        indices.append(low.bit_length() - 1)
        mask ^= low
    return indices


def _union(masks: Iterable[int]) -> int:
    result = 0
    for mask in masks:
        result |= mask
    return result
