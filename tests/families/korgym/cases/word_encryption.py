"""Cases for 28-word_encryption: the hidden word, the same in capitals with spaces (KORGym
strips and ignores case), the transformed word itself (wrong), and an empty answer."""

FOLDER = "28-word_encryption"
MULTI_TURN = False


def right(item, turn):
    return None if turn else item["original_word"]


def shouted(item, turn):
    return None if turn else " " + item["original_word"].upper() + " "


def as_shown(item, turn):
    return None if turn else item["transformed_word"]


CASES = [
    {"seed": 0, "policy": right, "note": "the hidden word"},
    {"seed": 1, "policy": shouted, "note": "the hidden word in capitals, spaces around"},
    {"seed": 6, "policy": as_shown, "note": "the transformed word as shown"},
    {"seed": 3, "actions": [""], "note": "nothing read from the reply"},
    {"seed": 4, "policy": right, "note": "the hidden word, another set of transformations"},
]
