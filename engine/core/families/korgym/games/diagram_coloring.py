"""42-diagram_coloring (mathematical and logical reasoning): a random graph of 10-50 nodes
and n-1 to n+5 edges; colour it with exactly its chromatic number of colours, given in the
question. Single turn: 1 for a proper colouring of every node once with colours 0..m-1,
else 0.

As in KORGym: the edges are listed in the order a Python set of (low, high) pairs iterates
(a set is built here exactly as KORGym builds it, so the order is the same on the same
CPython); the graph may be disconnected although KORGym's comment says it is connected; an
answer Python cannot read as a literal ends the game (``is_end``) with 0, a readable one
that is not a list of lists scores 0 the same way, and a literal Python reads but fails on
(e.g. an unhashable set ``{[0]}``) crashes KORGym's verify, recorded as 0. ``True`` and
``False`` pass as the integers 1 and 0, since KORGym checks with ``isinstance(…, int)``.
KORGym's verify also re-checks that m - 1 colours cannot do, which can never fail for its
graphs; that check is left out (``_proper``).
"""

from __future__ import annotations

import ast

from engine.core.families.korgym.common import KorgymGame

PROMPT = (
    "\nYou are an expert in graph theory and coloring. Below is the information about a "
    "graph.\nYour task:\n- Read the graph information carefully.\n"
    "- Provide a valid coloring scheme for the graph using the exact number of colors "
    "specified.\n"
    "- The coloring scheme should be a list of pairs [node, color] for each node.\n"
    "- Output format: 'Answer: [[0, 1], [1, 0], [2, 1],...]'.\n\n{board}\n"
)


def colouring(adj: list[list[int]], k: int) -> list[int] | None:
    """A colouring of the graph with colours 0..k-1 found by backtracking over the nodes by
    falling degree (ties by number), each taking the lowest colour free; None if none."""
    order = sorted(range(len(adj)), key=lambda node: len(adj[node]), reverse=True)
    colours = [-1] * len(adj)

    def place(at: int) -> bool:
        if at == len(order):
            return True
        node = order[at]
        taken = {colours[other] for other in adj[node]}
        for colour in range(k):
            if colour not in taken:
                colours[node] = colour
                if place(at + 1):
                    return True
        colours[node] = -1
        return False

    return colours if place(0) else None


def two_colourable(adj: list[list[int]]) -> bool:
    side = [-1] * len(adj)
    for start in range(len(adj)):
        if side[start] != -1:
            continue
        side[start] = 0
        queue = [start]
        while queue:
            node = queue.pop()
            for other in adj[node]:
                if side[other] == -1:
                    side[other] = side[node] ^ 1
                    queue.append(other)
                elif side[other] == side[node]:
                    return False
    return True


def chromatic_number(adj: list[list[int]], edges: int) -> int:
    """KORGym's m: 1 without edges, 2 for a bipartite graph, else the least k from 3 up to
    the highest degree + 1 that colours it."""
    if edges == 0:
        return 1
    if two_colourable(adj):
        return 2
    top = max(len(neighbours) for neighbours in adj)
    for k in range(3, top + 2):
        if colouring(adj, k) is not None:
            return k
    return top + 1


class DiagramColoring(KorgymGame):
    name = "diagram_coloring"
    folder = "42-diagram_coloring"
    title = "Coloring Issue"
    dimension = "MLR"
    answer_format = "a list of [node, color] pairs, e.g. [[0, 1], [1, 0], [2, 1]]"

    def generate(self, seed, rng):
        n = rng.randint(10, 50)
        count = rng.randint(n - 1, min(n * (n - 1) // 2, n + 5))
        nodes = list(range(n))
        drawn: set[tuple[int, int]] = set()
        while len(drawn) < count:
            u, v = rng.choice(nodes), rng.choice(nodes)
            if u != v:
                drawn.add((min(u, v), max(u, v)))
        edges = list(drawn)  # a set's order, as KORGym lists them
        adj: list[list[int]] = [[] for _ in nodes]
        for u, v in edges:
            adj[u].append(v)
            adj[v].append(u)
        m = chromatic_number(adj, count)
        board = (
            "Graph Coloring Problem:\n"
            "Nodes: " + ", ".join(str(i) for i in nodes) + "\n"
            "Edges (format: NodeA - NodeB):\n" + ", ".join(f"{u} - {v}" for u, v in edges) + "\n"
            "Question: Provide a valid coloring scheme for the graph using exactly "
            f"{m} colors (colors are numbered from 0 to {m - 1}).\n"
            "The coloring scheme should be a JSON list of pairs [node, color] for each node.\n"
            "Output format: 'Answer: [[0, 1], [1, 0], [2, 1],...]"
        )
        return {
            "board": board,
            "answer": str(m),
            "graph": adj,
            "score": 0,
            "is_end": False,
            "action": "",
            "response": [],
            "prompt": "",
            "epoch": 1,
        }

    def board(self, item):
        return PROMPT.format(board=item["board"])

    def verify(self, item, action, rng):
        item = self.copy(item)
        item["action"] = action
        try:
            scheme = ast.literal_eval(action)
        except (ValueError, SyntaxError):
            item["score"], item["is_end"] = 0, True
            return item
        except Exception:  # KORGym's verify crashes (a server error, scored 0)
            item["score"] = 0
            return item
        if not isinstance(scheme, list) or not all(isinstance(row, list) for row in scheme):
            item["score"], item["is_end"] = 0, True
            return item
        item["score"] = 1 if self._proper(item["graph"], int(item["answer"]), scheme) else 0
        return item

    @staticmethod
    def _proper(adj: list[list[int]], m: int, scheme: list[list]) -> bool:
        # KORGym first scores 0 if m - 1 colours would do; its m is the chromatic number
        # (see chromatic_number), so that never happens, and the search proving it can take
        # exponential time: it is left out.
        colour_of: dict[int, int] = {}
        for entry in scheme:
            if len(entry) != 2:
                return False
            node, colour = entry
            if not isinstance(node, int) or not isinstance(colour, int):
                return False
            if not 0 <= node < len(adj) or node in colour_of or not 0 <= colour < m:
                return False
            colour_of[node] = colour
        if len(colour_of) != len(adj):
            return False
        return all(colour_of[u] != colour_of[v] for u in range(len(adj)) for v in adj[u])

    def reference(self, item, rng):
        """A colouring with KORGym's m colours (its chromatic number): a win."""
        colours = colouring(item["graph"], int(item["answer"]))
        return [str([[node, colour] for node, colour in enumerate(colours)])]


GAME = DiagramColoring()
