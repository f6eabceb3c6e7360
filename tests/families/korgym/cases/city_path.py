"""Cases for 20-city_path: the right distance, one more, the right distance hidden in a
list of numbers (KORGym finds it), garbled text and an empty answer."""

FOLDER = "20-city_path"
MULTI_TURN = False


def right(item, turn):
    return None if turn else item["answer"]


def one_more(item, turn):
    return None if turn else str(int(item["answer"]) + 1)


def many(item, turn):
    return None if turn else " ".join(str(n) for n in range(int(item["answer"]) + 3))


def negative(item, turn):
    return None if turn else "-" + item["answer"]


def too_long(item, turn):
    return None if turn else "1" * 4301 + " " + item["answer"]


CASES = [
    {"seed": 0, "policy": right, "note": "the right distance"},
    {"seed": 1, "policy": right, "note": "the right distance"},
    {"seed": 2, "policy": one_more, "note": "one more than the distance"},
    {"seed": 3, "policy": many, "note": "every number up to past the distance"},
    {"seed": 4, "policy": negative, "note": "the distance with a minus sign"},
    {"seed": 5, "actions": ["It is far"], "note": "garbled text"},
    {"seed": 6, "actions": [""], "note": "nothing read from the reply"},
    {"seed": 7, "policy": too_long, "note": "a number too long for int, then the distance"},
]
