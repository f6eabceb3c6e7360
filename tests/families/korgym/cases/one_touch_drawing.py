"""Cases for 34-one_touch_drawing: an Eulerian path (found by Hierholzer's algorithm), the
same path with its last node dropped, the path with one edge walked twice instead of
another, the path with a node that is not in the graph, garbled text and an empty answer."""

FOLDER = "34-one_touch_drawing"
MULTI_TURN = False


def _path(item):
    edges = item["edges"]
    adjacent = {node: [] for node in item["nodes"]}
    for number, (u, v) in enumerate(edges):
        adjacent[u].append((v, number))
        adjacent[v].append((u, number))
    degree = {node: len(adjacent[node]) for node in adjacent}
    odd = [node for node in item["nodes"] if degree[node] % 2]
    used = set()
    stack, walk = [odd[0] if odd else item["nodes"][0]], []
    while stack:
        node = stack[-1]
        while adjacent[node] and adjacent[node][-1][1] in used:
            adjacent[node].pop()
        if adjacent[node]:
            other, number = adjacent[node].pop()
            used.add(number)
            stack.append(other)
        else:
            walk.append(stack.pop())
    return walk[::-1]


def euler(item, turn):
    return None if turn else ", ".join(_path(item))


def short(item, turn):
    return None if turn else ",".join(_path(item)[:-1])


def back_and_forth(item, turn):
    walk = _path(item)
    walk[2] = walk[0]
    return None if turn else ", ".join(walk)


def stranger(item, turn):
    walk = _path(item)
    walk[-1] = "node 99"
    return None if turn else ", ".join(walk)


CASES = [
    {"seed": 0, "policy": euler, "note": "an Eulerian path"},
    {"seed": 1, "policy": euler, "note": "an Eulerian path"},
    {"seed": 2, "policy": short, "note": "the last node left out"},
    {"seed": 3, "policy": back_and_forth, "note": "the first edge walked back"},
    {"seed": 4, "policy": stranger, "note": "a node not in the graph"},
    {"seed": 5, "actions": ["no such path"], "note": "garbled text"},
    {"seed": 6, "actions": [""], "note": "nothing read from the reply"},
]
