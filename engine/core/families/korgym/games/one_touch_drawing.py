"""34-one_touch_drawing (mathematical and logical reasoning): a graph with an Eulerian
path; the player lists the nodes of a walk using every edge exactly once. Single turn, 1
for such a walk, else 0.

KORGym's graph: 10–40 nodes on a cycle, plus ``N // 2`` random chords (pairs not next to
each other on the cycle); then, while more than two nodes have odd degree, an edge between
two of them drawn at random (which may double an existing edge). The answer is split at
commas; it must name exactly one more node than there are edges, and each consecutive
pair must use up one more copy of an edge (in either direction).
"""

from __future__ import annotations

from collections import Counter

from engine.core.families.korgym.common import KorgymGame

PROMPT = (
    "\nYou are a good game player, I'll give you a game board and rules.\nYour task is:\n"
    "- First, give your answer according to the game board and rules.\n"
    "- Second, output the answer in the required format. The last line of your response "
    "should be in the following format: 'Answer: $YOUR_ANSWER' (without quotes), where "
    "YOUR_ANSWER is your final answer to the question, e.g., 'Answer: node 1,node 3,...'\n"
    "You are a graph theory expert. Given the following nodes and edges, provide an "
    "Eulerian path that traverses each edge exactly once.\nNodes: {nodes}\nEdges: {edges}\n"
    "Your answer should be a comma-separated list of node names. Answer format: "
    '"Answer: node X, node Y, ..."\n'
)


def _odd(nodes: list[str], edges: list[list[str]]) -> list[str]:
    degree = Counter(node for edge in edges for node in edge)
    return [node for node in nodes if degree[node] % 2]


def _walks_every_edge(edges: list[list[str]], action: str) -> bool:
    walk = [name.strip() for name in action.strip().split(",") if name.strip()]
    if not walk or len(walk) != len(edges) + 1:
        return False
    left = Counter(frozenset(edge) for edge in edges)
    for a, b in zip(walk, walk[1:], strict=False):
        if left[frozenset((a, b))] <= 0:
            return False
        left[frozenset((a, b))] -= 1
    return sum(left.values()) == 0


class OneTouchDrawing(KorgymGame):
    name = "one_touch_drawing"
    folder = "34-one_touch_drawing"
    title = "One Stroke Drawing"
    dimension = "MLR"
    answer_format = "the nodes of the walk, separated by commas: node 1, node 3, …"

    def generate(self, seed, rng):
        n = rng.randint(10, 40)
        nodes = [f"node {i + 1}" for i in range(n)]
        edges = [[nodes[i], nodes[(i + 1) % n]] for i in range(n)]
        chords = [
            (i, j)
            for i in range(n)
            for j in range(i + 1, n)
            if not (j == i + 1 or (i == 0 and j == n - 1))
        ]
        edges += [
            [nodes[i], nodes[j]] for i, j in rng.sample(chords, min(max(1, n // 2), len(chords)))
        ]
        # Every node is on the cycle, so KORGym's degree table lists nodes in node order.
        while len(odd := _odd(nodes, edges)) not in (0, 2):
            edges.append(rng.sample(odd, 2))
        return {
            "nodes": nodes,
            "edges": edges,
            "current_problem": PROMPT.format(
                nodes=", ".join(nodes), edges=", ".join(f"<{u}, {v}>" for u, v in edges)
            ),
            "score": 0,
            "is_end": False,
            "action": "",
            "response": [],
            "prompt": "",
            "epoch": 1,
        }

    def board(self, item):
        return item["current_problem"]

    def verify(self, item, action, rng):
        item = self.copy(item)
        item["action"] = action
        item["score"] = 1 if _walks_every_edge(item["edges"], action) else 0
        return item

    def reference(self, item, rng):
        """An Eulerian path by Hierholzer's algorithm, from an odd node if there is one."""
        edges = item["edges"]
        unused: dict[str, list[tuple[str, int]]] = {node: [] for node in item["nodes"]}
        for number, (u, v) in enumerate(edges):
            unused[u].append((v, number))
            unused[v].append((u, number))
        odd = _odd(item["nodes"], edges)
        used = [False] * len(edges)
        stack, walk = [odd[0] if odd else item["nodes"][0]], []
        while stack:
            node = stack[-1]
            while unused[node] and used[unused[node][-1][1]]:
                unused[node].pop()
            if unused[node]:
                other, number = unused[node].pop()
                used[number] = True
                stack.append(other)
            else:
                walk.append(stack.pop())
        return [", ".join(reversed(walk))]


GAME = OneTouchDrawing()
