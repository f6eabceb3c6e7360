"""Cases for 8-word_puzzle: every word (1); the words in capitals with spaces (KORGym strips
and ignores case); the first half only (a share); bytes in place of the first word (wrong,
no crash); a number in place of a word (KORGym's verify crashes); words not as a list.
Each case seeds Python's global generator with its own seed before /generate, since
KORGym draws the number of words and the hiding rate from it before seeding."""

FOLDER = "8-word_puzzle"
MULTI_TURN = False


def right(item, turn):
    return None if turn else str(item["answer"])


def shouted(item, turn):
    return None if turn else str([" " + word.upper() + " " for word in item["answer"]])


def half(item, turn):
    return None if turn else str(item["answer"][: len(item["answer"]) // 2])


def first_as_bytes(item, turn):
    if turn:
        return None
    return (
        "["
        + ", ".join([repr(item["answer"][0].encode())] + [repr(w) for w in item["answer"][1:]])
        + "]"
    )


def a_number(item, turn):
    return None if turn else str([*item["answer"][:-1], 7])


def plain(item, turn):
    return None if turn else ", ".join(item["answer"])


CASES = [
    {"seed": 0, "global_seed": 0, "policy": right, "note": "every word"},
    {"seed": 1, "global_seed": 1, "policy": shouted, "note": "every word, capitals, spaces"},
    {"seed": 2, "global_seed": 2, "policy": half, "note": "the first half of the words"},
    {"seed": 3, "global_seed": 3, "policy": first_as_bytes, "note": "bytes for the first word"},
    {"seed": 4, "global_seed": 4, "policy": a_number, "note": "a number for the last word"},
    {"seed": 5, "global_seed": 5, "policy": plain, "note": "the words without brackets"},
]
