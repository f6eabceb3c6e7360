"""Cases for 1-DateCount: the right date, a wrong one, the right one with spaces around it
(KORGym strips), an unpadded month (not KORGym's format), and an empty action."""

FOLDER = "1-DateCount"
MULTI_TURN = False


def right(item, turn):
    return None if turn else item["correct_answer"]


def padded(item, turn):
    return None if turn else "  " + item["correct_answer"] + " "


def unpadded(item, turn):
    if turn:
        return None
    year, month, day = item["correct_answer"].split("/")
    return f"{year}/{int(month)}/{int(day)}"


CASES = [
    {"seed": 0, "policy": right, "note": "the right date"},
    {"seed": 1, "actions": ["1000/01/01"], "note": "a wrong date"},
    {"seed": 2, "policy": padded, "note": "spaces around the right date"},
    {"seed": 3, "policy": unpadded, "note": "month and day not padded"},
    {"seed": 4, "actions": [""], "note": "nothing read from the reply"},
    {"seed": 77, "policy": right, "note": "a year before 1000"},
]
