"""Domain analysis: the truth graph, its communities, the split by connection, and the
test of task structure against correctness (``domain-model.md``, "Domain analysis").

Definitions (``docs/domain-analysis.md`` explains them with examples):

* **Truths of an action**: every truth that some state of the action rules out (the union
  over its states).
* **Truth graph**: one node per pool truth; two truths are joined when some action's
  states mention both, i.e. both are truths of one action, whether or not the same state
  names them. An edge's ``weight`` is the number of actions that mention both. The truths
  of one action therefore form a clique, which is what makes the split below clean.
* **Communities**: Louvain (``networkx.community.louvain_communities``) on the weighted
  graph with a fixed seed, so the same domain always gives the same communities.
* **Split by connection**: the connected components, ordered by size (largest first) and
  then by their alphabetically first truth, go alternately to side 1 (in-distribution)
  and side 2 (out-of-distribution). An action goes to side 1 if all its truths lie on
  side 1, else to side 2. Because an action's truths form a clique they always lie in one
  component, so no state names a truth of the other side; :func:`restrict_domain` still
  trims such rule-outs (and reports them) so it is safe for any choice of truths.
* **Task signature**: the sorted (descending) degree sequences of the task's bipartite
  truth–action graph, where a truth and an action of the task are joined when some state
  of the action (any state, not only the observed one) rules the truth out. It depends
  only on what the knowledge book shows, never on the secret observations.
* **Structure vs. performance**: a task counts as correct for a model if it wins a strict
  majority of its runs (≥ 3 of 5); χ² test of independence between signature (rows) and
  correctness (columns) with ``scipy.stats.chi2_contingency`` *without* Yates' correction,
  and Cramér's V = sqrt(χ² / (n · min(r − 1, c − 1))).

Nothing here imports Django.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass

from engine.core.families.kumo.domain_io import validate_domain
from engine.core.families.kumo.types import Action, Domain, State
from engine.core.lazy import lazy_module

nx = lazy_module("networkx")

# Louvain is randomised; a fixed seed makes the communities reproducible.
LOUVAIN_SEED = 20250
IND_SUFFIX = "-IND"
OOD_SUFFIX = "-OOD"
SIDE_NAMES = {1: "in-distribution", 2: "out-of-distribution"}

Signature = tuple[tuple[int, ...], tuple[int, ...]]


class SplitError(ValueError):
    """The split by connection cannot be made; ``str()`` explains why."""


# --------------------------------------------------------------------------------------
# The truth graph and its communities


@dataclass(frozen=True)
class TruthEdge:
    """Two truths mentioned by ``weight`` common actions (``a`` comes first in the pool)."""

    a: str
    b: str
    weight: int


@dataclass(frozen=True)
class TruthGraph:
    truths: tuple[str, ...]
    edges: tuple[TruthEdge, ...]

    def to_networkx(self) -> nx.Graph:
        """The graph with nodes in pool order and edges in a fixed order (Louvain and the
        layout depend on insertion order, so this order keeps them reproducible)."""
        graph = nx.Graph()
        graph.add_nodes_from(self.truths)
        graph.add_weighted_edges_from((edge.a, edge.b, edge.weight) for edge in self.edges)
        return graph


def action_truths(action: Action) -> frozenset[str]:
    """Every truth that some state of ``action`` rules out."""
    return frozenset().union(*(state.rules_out for state in action.states))


def truth_graph(domain: Domain) -> TruthGraph:
    """The domain graph: truths joined when one action's states mention both."""
    position = {truth: index for index, truth in enumerate(domain.truths)}
    weights: Counter[tuple[str, str]] = Counter()
    for action in domain.actions:
        # Truths outside the pool (an invalid domain) are ignored rather than invented.
        mentioned = sorted((t for t in action_truths(action) if t in position), key=position.get)
        weights.update(itertools.combinations(mentioned, 2))
    edges = tuple(
        TruthEdge(a, b, weight)
        for (a, b), weight in sorted(
            weights.items(), key=lambda item: (position[item[0][0]], position[item[0][1]])
        )
    )
    return TruthGraph(truths=tuple(domain.truths), edges=edges)


@dataclass(frozen=True)
class Communities:
    """Louvain communities, largest first; each lists its truths in pool order.

    ``modularity`` is ``None`` for a graph without edges (it is undefined there).
    """

    groups: tuple[tuple[str, ...], ...]
    modularity: float | None
    seed: int

    def community_of(self) -> dict[str, int]:
        return {truth: index for index, group in enumerate(self.groups) for truth in group}


def find_communities(graph: TruthGraph, *, seed: int = LOUVAIN_SEED) -> Communities:
    """Louvain communities of the weighted truth graph, reproducible for a given seed."""
    position = {truth: index for index, truth in enumerate(graph.truths)}
    nx_graph = graph.to_networkx()
    if nx_graph.number_of_nodes() == 0:
        return Communities(groups=(), modularity=None, seed=seed)
    found = nx.community.louvain_communities(nx_graph, weight="weight", seed=seed)
    groups = sorted(
        (tuple(sorted(group, key=position.__getitem__)) for group in found),
        key=lambda group: (-len(group), position[group[0]]),
    )
    modularity = None
    if nx_graph.number_of_edges():
        modularity = float(nx.community.modularity(nx_graph, found, weight="weight"))
    return Communities(groups=tuple(groups), modularity=modularity, seed=seed)


# --------------------------------------------------------------------------------------
# The split by connection


@dataclass(frozen=True)
class Component:
    truths: tuple[str, ...]
    side: int


@dataclass(frozen=True)
class SplitPlan:
    """Which truths and actions go to each side (index 0: side 1, index 1: side 2).

    Computed for every domain; with a single component side 2 is empty and the split
    itself (:func:`split_domain`) refuses.
    """

    components: tuple[Component, ...]
    truths: tuple[tuple[str, ...], tuple[str, ...]]
    actions: tuple[tuple[str, ...], tuple[str, ...]]

    @property
    def possible(self) -> bool:
        return len(self.components) >= 2

    def side_of_truth(self) -> dict[str, int]:
        return {truth: c.side for c in self.components for truth in c.truths}


def plan_split(domain: Domain, graph: TruthGraph | None = None) -> SplitPlan:
    """Assign components alternately to the two sides, then each action by its truths.

    1. Connected components of the truth graph (a truth no action mentions is a component
       of its own).
    2. Order: larger first; among equal sizes, the component whose alphabetically first
       truth comes first. Components 1, 3, 5, … go to side 1, components 2, 4, … to side 2.
    3. An action goes to side 1 if all its truths lie on side 1 (an action that rules out
       nothing at all trivially does), else to side 2.
    """
    graph = graph or truth_graph(domain)
    position = {truth: index for index, truth in enumerate(graph.truths)}
    found = [
        tuple(sorted(part, key=position.__getitem__))
        for part in nx.connected_components(graph.to_networkx())
    ]
    found.sort(key=lambda part: (-len(part), min(part)))
    components = tuple(
        Component(truths=part, side=1 if index % 2 == 0 else 2) for index, part in enumerate(found)
    )
    side = {truth: c.side for c in components for truth in c.truths}
    truths = tuple(tuple(t for t in graph.truths if side[t] == number) for number in (1, 2))
    action_sides = {
        action.name: 1 if all(side.get(t) == 1 for t in action_truths(action)) else 2
        for action in domain.actions
    }
    actions = tuple(
        tuple(a.name for a in domain.actions if action_sides[a.name] == number) for number in (1, 2)
    )
    return SplitPlan(components=components, truths=truths, actions=actions)  # type: ignore[arg-type]


@dataclass(frozen=True)
class SubDomain:
    """One half of a split: a valid domain plus what had to be left out to make it so."""

    domain: Domain
    side: int
    # (name, reason) pairs; ``trimmed`` lists rule-outs removed because they named a truth
    # of the other side.
    dropped_actions: tuple[tuple[str, str], ...]
    dropped_truths: tuple[tuple[str, str], ...]
    trimmed: tuple[str, ...]


@dataclass(frozen=True)
class DomainSplit:
    plan: SplitPlan
    ind: SubDomain
    ood: SubDomain


def restrict_domain(
    domain: Domain,
    *,
    name: str,
    truths: Iterable[str],
    actions: Iterable[str],
    side: int = 1,
    title: str = "",
    description: str = "",
) -> SubDomain:
    """The sub-domain made of ``truths`` and ``actions``, made valid with care.

    1. Keep the named actions in domain order. In each state, drop rule-outs that name a
       truth outside ``truths`` (reported in ``trimmed``); the states themselves are all
       kept, so no action loses states and float ranges stay as they were.
    2. Drop an action that now rules out none of the kept truths: it could never change a
       game of this sub-domain.
    3. Drop truths that no kept action rules out (every pool truth must be ruled out by
       some state).
    4. Validate; a problem left (e.g. the input domain was already invalid, or nothing is
       left) raises :class:`SplitError` listing every problem.
    """
    keep = [t for t in domain.truths if t in set(truths)]
    keep_set = set(keep)
    wanted = set(actions)
    unknown = sorted(wanted - set(domain.actions_by_name))
    if unknown:
        raise SplitError(f"unknown action(s) in domain {domain.name!r}: {', '.join(unknown)}")

    trimmed: list[str] = []
    dropped_actions: list[tuple[str, str]] = []
    kept_actions: list[Action] = []
    for action in domain.actions:
        if action.name not in wanted:
            continue
        states = []
        trims = []
        for state in action.states:
            outside = sorted(state.rules_out - keep_set)
            if outside:
                trims.append(
                    f"{action.name!r} state {state.key!r} no longer rules out "
                    + ", ".join(repr(t) for t in outside)
                )
            states.append(
                State(
                    rules_out=state.rules_out & keep_set,
                    label=state.label,
                    range=state.range,
                    description=state.description,
                )
            )
        if not any(state.rules_out for state in states):
            dropped_actions.append((action.name, "rules out none of this side's truths"))
            continue
        trimmed.extend(trims)  # only kept actions: a dropped one is reported as dropped
        kept_actions.append(
            Action(
                name=action.name,
                type=action.type,
                states=tuple(states),
                description=action.description,
                unit=action.unit,
            )
        )

    ruled_out = set().union(*(action_truths(action) for action in kept_actions))
    dropped_truths = tuple(
        (t, "no action of this side rules it out") for t in keep if t not in ruled_out
    )
    sub = Domain(
        name=name,
        truths=tuple(t for t in keep if t in ruled_out),
        actions=tuple(kept_actions),
        title=title,
        description=description,
        truth_noun=domain.truth_noun,
        action_noun=domain.action_noun,
    )
    problems = validate_domain(sub)
    if problems:
        raise SplitError(
            f"the {SIDE_NAMES.get(side, f'side {side}')} half {name!r} would not be a valid "
            "domain:\n" + "\n".join(f"  - {problem}" for problem in problems)
        )
    return SubDomain(
        domain=sub,
        side=side,
        dropped_actions=tuple(dropped_actions),
        dropped_truths=dropped_truths,
        trimmed=tuple(trimmed),
    )


def split_domain(domain: Domain, plan: SplitPlan | None = None) -> DomainSplit:
    """Both halves of the split by connection, named ``<name>-IND`` and ``<name>-OOD``.

    Raises :class:`SplitError` when the truth graph is connected (one component: there is
    nothing to split) or when a half cannot be made a valid domain.
    """
    plan = plan or plan_split(domain)
    if not plan.possible:
        raise SplitError(
            f"domain {domain.name!r} cannot be split by connection: its truth graph is "
            f"connected (a single component of {len(plan.truths[0])} truths), so the "
            "out-of-distribution side would have no truths"
        )
    label = domain.title or domain.name
    halves = []
    for side, suffix in ((1, IND_SUFFIX), (2, OOD_SUFFIX)):
        halves.append(
            restrict_domain(
                domain,
                name=domain.name + suffix,
                truths=plan.truths[side - 1],
                actions=plan.actions[side - 1],
                side=side,
                title=f"{label} ({SIDE_NAMES[side]})",
                description=(
                    f"The {SIDE_NAMES[side]} half of {domain.name!r}, split by connection of "
                    f"its truth graph. {domain.description}"
                ).strip(),
            )
        )
    return DomainSplit(plan=plan, ind=halves[0], ood=halves[1])


@dataclass(frozen=True)
class DomainAnalysis:
    """Everything the domain page shows about a domain's structure."""

    graph: TruthGraph
    communities: Communities
    plan: SplitPlan


def analyse_domain(domain: Domain, *, seed: int = LOUVAIN_SEED) -> DomainAnalysis:
    graph = truth_graph(domain)
    return DomainAnalysis(
        graph=graph, communities=find_communities(graph, seed=seed), plan=plan_split(domain, graph)
    )


# --------------------------------------------------------------------------------------
# Task structure against correctness


def task_signature(domain: Domain, truths: Sequence[str], actions: Sequence[str]) -> Signature:
    """Sorted degree sequences (truths, then actions; descending) of a task's bipartite
    truth–action graph: a truth and an action are joined when some state of the action
    rules the truth out. Raises ``KeyError`` for an action not in the domain."""
    task_truths = set(truths)
    neighbours = {name: action_truths(domain.action(name)) & task_truths for name in actions}
    action_degrees = sorted((len(found) for found in neighbours.values()), reverse=True)
    truth_degrees = sorted(
        (sum(1 for found in neighbours.values() if t in found) for t in truths), reverse=True
    )
    return tuple(truth_degrees), tuple(action_degrees)


def format_signature(signature: Signature) -> str:
    truths, actions = signature
    return f"truths {list(truths)} · actions {list(actions)}"


def majority_correct(wins: int, runs: int) -> bool:
    """A task counts as correct when it wins a strict majority of its runs (3 of 5)."""
    if runs < 1 or not 0 <= wins <= runs:
        raise ValueError(f"need 0 <= wins <= runs and runs >= 1, got {wins} of {runs}")
    return 2 * wins > runs


@dataclass(frozen=True)
class IndependenceTest:
    """χ² test of independence between a categorical row variable and a column variable.

    When the table has a single row or column the test is undefined: ``statistic``,
    ``p_value``, ``dof`` and ``cramers_v`` are ``None`` and ``note`` says why.
    ``low_expected`` is the share of cells whose expected count is below 5, the usual
    warning that the χ² approximation is rough.
    """

    n: int
    rows: int
    columns: int
    statistic: float | None
    p_value: float | None
    dof: int | None
    cramers_v: float | None
    low_expected: float | None
    note: str = ""

    @property
    def defined(self) -> bool:
        return self.statistic is not None


def cramers_v(statistic: float, n: int, rows: int, columns: int) -> float:
    """Cramér's V = sqrt(χ² / (n · min(r − 1, c − 1)))."""
    k = min(rows - 1, columns - 1)
    if n <= 0 or k <= 0:
        raise ValueError("Cramér's V needs n > 0 and at least two rows and two columns")
    return math.sqrt(statistic / (n * k))


def independence_test(pairs: Iterable[tuple[Hashable, Hashable]]) -> IndependenceTest:
    """χ² test of independence and Cramér's V for observations ``(row, column)``.

    Rows and columns are the distinct values observed (sorted by ``repr`` for a stable
    table). Yates' continuity correction is off so that V follows the formula above.
    """
    counts = Counter(pairs)
    n = sum(counts.values())
    row_keys = sorted({row for row, _ in counts}, key=repr)
    column_keys = sorted({column for _, column in counts}, key=repr)
    shape = {"n": n, "rows": len(row_keys), "columns": len(column_keys)}
    if n == 0:
        return _undefined(**shape, note="no data")
    if len(row_keys) < 2 or len(column_keys) < 2:
        which = []
        if len(row_keys) < 2:
            which.append("every task has the same signature")
        if len(column_keys) < 2:
            which.append("every task has the same outcome")
        return _undefined(**shape, note="not enough variation: " + " and ".join(which))
    table = [[counts.get((row, column), 0) for column in column_keys] for row in row_keys]
    # Imported here: scipy.stats takes about half a second to import, and every process
    # (commands, web workers) imports this module while few ever run the test.
    from scipy.stats import chi2_contingency

    result = chi2_contingency(table, correction=False)
    statistic = float(result.statistic)
    expected = result.expected_freq
    low = float((expected < 5).sum()) / expected.size
    return IndependenceTest(
        n=n,
        rows=len(row_keys),
        columns=len(column_keys),
        statistic=statistic,
        p_value=float(result.pvalue),
        dof=int(result.dof),
        cramers_v=cramers_v(statistic, n, len(row_keys), len(column_keys)),
        low_expected=low,
    )


def _undefined(*, n: int, rows: int, columns: int, note: str) -> IndependenceTest:
    return IndependenceTest(
        n=n,
        rows=rows,
        columns=columns,
        statistic=None,
        p_value=None,
        dof=None,
        cramers_v=None,
        low_expected=None,
        note=note,
    )
