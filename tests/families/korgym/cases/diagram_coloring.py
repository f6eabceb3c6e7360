"""Cases for 42-diagram_coloring: a proper colouring (found by backtracking here), every
node colour 0 (wrong), a node left out, booleans as the two colours of a bipartite graph
(KORGym takes them for 0 and 1), the pairs without the outer brackets (a tuple: ends the
game), garbled text (ends the game), a number (not a list: ends the game), and an
unhashable literal that crashes KORGym's verify."""

FOLDER = "42-diagram_coloring"
MULTI_TURN = False


def proper(adj, k):
    order = sorted(range(len(adj)), key=lambda node: len(adj[node]), reverse=True)
    colours = [-1] * len(adj)

    def place(at):
        if at == len(order):
            return True
        node = order[at]
        for colour in range(k):
            if all(colours[other] != colour for other in adj[node]):
                colours[node] = colour
                if place(at + 1):
                    return True
                colours[node] = -1
        return False

    place(0)
    return colours


def right(item, turn):
    if turn:
        return None
    colours = proper(item["graph"], int(item["answer"]))
    return str([[node, colour] for node, colour in enumerate(colours)])


def booleans(item, turn):
    if turn:
        return None
    colours = proper(item["graph"], int(item["answer"]))
    return "[" + ", ".join(f"[{node}, {bool(colour)}]" for node, colour in enumerate(colours)) + "]"


def unbracketed(item, turn):
    return None if turn else right(item, turn)[1:-1]


def all_zero(item, turn):
    return None if turn else str([[node, 0] for node in range(len(item["graph"]))])


def one_missing(item, turn):
    return None if turn else right(item, turn).rsplit(", [", 1)[0] + "]"


CASES = [
    {"seed": 0, "policy": right, "note": "a proper colouring"},
    {"seed": 1, "policy": all_zero, "note": "every node colour 0"},
    {"seed": 2, "policy": one_missing, "note": "the last node left out"},
    {"seed": 18, "policy": booleans, "note": "two colours written as booleans"},
    {"seed": 7, "policy": unbracketed, "note": "a proper colouring without the outer brackets"},
    {"seed": 4, "actions": ["node 0 is red"], "note": "garbled text"},
    {"seed": 5, "actions": ["3"], "note": "a number, not a list"},
    {"seed": 6, "actions": ["[[0, 1], {[0]}]"], "note": "an unhashable literal"},
]
