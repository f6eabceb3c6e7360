"""Cases for 16-jiafa: the right column sums, one sum off, too few sums, text that is not
a Python literal (KORGym ends the game), a literal that makes literal_eval raise a
TypeError (a server error in KORGym), booleans for integers, and an empty answer."""

FOLDER = "16-jiafa"
MULTI_TURN = False


def right(item, turn):
    return None if turn else "[" + ",".join(str(x) for x in item["col_sums"]) + "]"


def spaced(item, turn):
    return None if turn else "  " + str(item["col_sums"])


def one_off(item, turn):
    sums = list(item["col_sums"])
    sums[-1] += 1
    return None if turn else str(sums)


def too_few(item, turn):
    return None if turn else str(item["col_sums"][:-1])


CASES = [
    {"seed": 0, "policy": right, "note": "the right sums"},
    {"seed": 1, "policy": spaced, "note": "the right sums after spaces"},
    {"seed": 2, "policy": one_off, "note": "the last sum one off"},
    {"seed": 3, "policy": too_few, "note": "one sum missing"},
    {"seed": 4, "actions": ["the sums are 3 and 4"], "note": "not a Python literal"},
    {"seed": 5, "actions": ["{[1, 2]}"], "note": "literal_eval raises TypeError"},
    {"seed": 6, "actions": ["[True, False]"], "note": "booleans, wrong length"},
    {"seed": 7, "actions": [""], "note": "nothing read from the reply"},
    {"seed": 213, "policy": right, "note": "the right sums"},
]
