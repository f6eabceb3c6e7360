"""Cases for 37-SpiderSolitaire: a game of legal moves read off the board KORGym shows (a
move that uncovers a card or empties a column first, else a deal, else any move that does
not undo the last), with garbled and illegal actions every seventh turn and a deal asked
for while a column is empty; the reference's line for seed 0 (planned by the project's
``GameSpider.reference`` with everything known; it removes a run), played through KORGym
for its 100 turns; and actions in every form KORGym's reader meets (spaces, case, missing
parentheses, a Unicode digit, an underscore in the index, too few or too many parts, face-down
and out-of-range cards) with deals until the stock is out. KORGym's ``generate`` draws its
deal's seed from the global generator, so each case seeds it with its own seed
(``global_seed``), as the game here does."""

FOLDER = "37-SpiderSolitaire"
MULTI_TURN = True
VALUE = {r: i + 1 for i, r in enumerate("A 2 3 4 5 6 7 8 9 10 J Q K".split())}
LABELS = "ABCDEFGHIJ"
GARBLED = [
    "(A,0,B)",
    "(A,40,B)",
    "hit me",
    "(K,4,A)",
    "(B,1)",
    "",
    "(J, 4 ,J)",
    "(C,-1,D)",
    "move A to B",
    "(A,4,B,C)",
]
LAST = {}


def _legal(board):
    """The moves KORGym accepts on its visible board: from each column, each start within
    the face-up run of one suit at its end, onto an empty column or a card one rank
    higher."""
    moves = []
    for source, column in enumerate(board):
        if not column:
            continue
        start = len(column) - 1
        while start > 0:
            above, card = column[start - 1], column[start]
            if above[0] != card[0] or above[0] == "unknown":
                break
            if VALUE[above[1]] != VALUE[card[1]] + 1:
                break
            start -= 1
        for first in range(start, len(column)):
            for target, onto in enumerate(board):
                if target == source:
                    continue
                if not onto or VALUE.get(onto[-1][1]) == VALUE[column[first][1]] + 1:
                    uncovers = first > 0 and column[first - 1][0] == "unknown"
                    empties = first == 0
                    moves.append((uncovers or empties, source, first, target))
    return moves


def legal_play(item, turn):
    if turn >= 45:
        return None
    if turn % 7 == 6:
        return GARBLED[(turn // 7) % len(GARBLED)]
    board = item["board"]
    if any(not column for column in board) and not LAST.get("asked"):
        LAST["asked"] = True
        return "hit"  # refused: a column is empty
    moves = _legal(board)
    good = [m for m in moves if m[0]]
    back = LAST.get("move")
    if good:
        _, source, first, target = good[0]
    elif turn % 5 == 0:
        return "hit"
    else:
        others = [m for m in moves if back is None or (m[3], m[1]) != (back[0], back[1])]
        if not others:
            return "hit"
        _, source, first, target = others[0]
    LAST["move"] = (source, target)
    return f"({LABELS[source]},{first},{LABELS[target]})"


# The reference's line for seed 0, as planned when the fixtures were recorded.
REFERENCE = [
    "(A,5,E)",
    "(J,4,I)",
    "(J,3,I)",
    "(J,2,G)",
    "(H,4,J)",
    "(E,4,H)",
    "(B,5,D)",
    "(H,3,B)",
    "(B,5,H)",
    "(J,1,E)",
    "(I,6,G)",
    "(J,0,I)",
    "(C,5,B)",
    "(C,4,A)",
    "(C,3,I)",
    "(C,2,F)",
    "(F,4,B)",
    "(C,1,F)",
    "(E,4,C)",
    "(A,5,J)",
    "(A,4,F)",
    "(J,0,F)",
    "(D,6,F)",
    "(A,3,F)",
    "(I,4,F)",
    "(I,3,G)",
    "(D,5,J)",
    "(J,0,D)",
    "(B,5,J)",
    "(C,0,B)",
    "(H,2,C)",
    "(I,2,H)",
    "(G,6,H)",
    "hit",
    "(J,3,G)",
    "(C,4,J)",
    "(F,13,C)",
    "(B,8,C)",
    "(D,6,I)",
    "(E,4,I)",
    "(A,3,E)",
    "(A,2,C)",
    "hit",
    "(C,7,A)",
    "(I,5,C)",
    "(A,1,C)",
    "(E,5,F)",
    "(E,4,G)",
    "(E,3,B)",
    "(A,0,H)",
    "(J,4,I)",
    "(E,2,G)",
    "(F,13,E)",
    "(E,1,A)",
    "(E,0,I)",
    "(D,6,B)",
    "(D,5,H)",
    "(A,0,D)",
    "(D,4,J)",
    "(D,3,J)",
    "(D,2,A)",
    "(D,1,G)",
    "(F,10,J)",
    "(J,8,E)",
    "(J,4,G)",
    "(F,9,G)",
    "(F,8,D)",
    "(F,7,H)",
    "(D,0,F)",
    "(B,10,D)",
    "(C,2,B)",
    "(D,0,C)",
    "(G,16,F)",
    "(G,11,D)",
    "(G,10,C)",
    "(D,0,C)",
    "(E,0,C)",
    "(I,6,D)",
    "(A,0,I)",
    "(I,6,E)",
    "(D,0,I)",
    "(C,9,A)",
    "(B,8,D)",
    "(C,4,B)",
    "hit",
    "(C,4,I)",
    "(A,4,C)",
    "(A,0,F)",
    "(E,1,A)",
    "(E,0,D)",
    "(B,13,E)",
    "(I,8,B)",
    "(J,4,D)",
    "hit",
    "(D,0,J)",
    "(A,1,D)",
    "hit",
    "(D,1,I)",
    "(D,0,I)",
    "(H,12,E)",
]

FORMS = [
    " (C,5,B)",  # a leading space: not read as a move
    "(C,5,B) ",  # a trailing space: not read either
    "C,5,B",  # no parentheses
    "(e, 4 ,h)",  # lower case, spaces inside
    "((E,3,I))",  # doubled parentheses
    "(A,0,B)",  # face down
    "(A,9,B)",  # past the column's end
    "(A,-1,B)",
    "(AB,4,C)",
    "(A,4)",
    "(A,4,B,C)",
    "(A,x,B)",
    "(A,\u0665,C)",  # an Arabic-Indic five: Python's int reads it
    "(I,0_5,G)",  # so it does an underscore
    "",
    "deal",
    "HIT",
    " hit ",
    "Hit",
    "hit",
    "hIT",
    "hit",  # the stock is out: refused
    "(D,5,A)",
]

CASES = [
    {"seed": 3, "global_seed": 3, "policy": legal_play, "note": "legal moves, garbled actions"},
    {"seed": 0, "global_seed": 0, "actions": REFERENCE, "note": "the reference's line"},
    {"seed": 1, "global_seed": 1, "actions": FORMS, "note": "every form of action, all deals"},
]
