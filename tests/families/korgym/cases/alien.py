"""Cases for 18-alien: the right count, one more, the count with spaces (int reads it), a
count in words, and an empty answer.

Record with string hashing unsalted, as the module says (KORGym lists a criterion's values
through a set): PYTHONHASHSEED=0 python record_korgym.py KORGYM alien"""

FOLDER = "18-alien"
MULTI_TURN = False


def right(item, turn):
    return None if turn else item["answer"]


def one_more(item, turn):
    return None if turn else str(int(item["answer"]) + 1)


def spaced(item, turn):
    return None if turn else "  " + item["answer"] + "\n"


CASES = [
    {"seed": 0, "policy": right, "note": "the right count"},
    {"seed": 1, "policy": right, "note": "the right count"},
    {"seed": 2, "policy": one_more, "note": "one more than the count"},
    {"seed": 3, "policy": spaced, "note": "the right count among spaces"},
    {"seed": 4, "actions": ["twelve"], "note": "a count in words"},
    {"seed": 5, "actions": [""], "note": "nothing read from the reply"},
]
