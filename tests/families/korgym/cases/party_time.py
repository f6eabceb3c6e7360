"""Cases for 19-party_time: the right count, one less, the count with a unit (int fails),
a negative count, and an empty answer.

Record with string hashing unsalted, as the module says (KORGym samples from sets of
strings): PYTHONHASHSEED=0 python record_korgym.py KORGYM party_time"""

FOLDER = "19-party_time"
MULTI_TURN = False


def right(item, turn):
    return None if turn else item["answer"]


def one_less(item, turn):
    return None if turn else str(int(item["answer"]) - 1)


def with_unit(item, turn):
    return None if turn else item["answer"] + " students"


# Seeds with few guests (70–84), to keep the fixture small.
CASES = [
    {"seed": 2, "policy": right, "note": "the right count"},
    {"seed": 10, "policy": right, "note": "the right count"},
    {"seed": 19, "policy": one_less, "note": "one less than the count"},
    {"seed": 31, "policy": with_unit, "note": "the right count followed by 'students'"},
    {"seed": 43, "actions": ["-3"], "note": "a negative count"},
    {"seed": 56, "actions": [""], "note": "nothing read from the reply"},
]
