"""Cases for 30-Tower_of_Hanoi: a shortest solution (answered twice: the board never
changes), only its first move, an illegal move, a column given as text (KORGym's verify
fails), a list of lists instead of tuples, and text that is no Python literal."""

from collections import deque

FOLDER = "30-Tower_of_Hanoi"
MULTI_TURN = True
GOAL = ((), (), (), ("a", "b", "c", "d", "e"))


def solution(item):
    start = tuple(() if c == "null" else tuple(c.split(",")) for c in item["current_state"])
    seen = {start: []}
    queue = deque([start])
    while queue:
        state = queue.popleft()
        if state == GOAL:
            return seen[state]
        for src in range(4):
            for dest in range(4):
                if src == dest or not state[src]:
                    continue
                disk = state[src][0]
                if state[dest] and disk > state[dest][0]:
                    continue
                columns = [list(c) for c in state]
                columns[src].pop(0)
                columns[dest].insert(0, disk)
                after = tuple(tuple(c) for c in columns)
                if after not in seen:
                    seen[after] = seen[state] + [(disk, dest + 1)]
                    queue.append(after)


def solve_twice(item, turn):
    return None if turn >= 2 else repr(solution(item))


def first_move(item, turn):
    return None if turn else repr(solution(item)[:1])


CASES = [
    {"seed": 0, "policy": solve_twice, "note": "a shortest solution, twice"},
    {"seed": 5, "policy": solve_twice, "note": "a shortest solution, twice"},
    {"seed": 1, "policy": first_move, "note": "only the first move"},
    {
        "seed": 2,
        "actions": ["[('e', 1)]", "[('a', '4')]", "[['a', 4]]", "move a to 4", "", "[]"],
        "note": "an illegal move, a column as text, lists, no literal, nothing, no moves",
    },
]
