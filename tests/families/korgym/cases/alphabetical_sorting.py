"""Cases for 22-alphabetical_sorting: the hidden word, the same in capitals with spaces
(KORGym strips and ignores case), a wrong word, and a garbled answer."""

FOLDER = "22-alphabetical_sorting"
MULTI_TURN = False


def right(item, turn):
    return None if turn else item["correct_word"]


def shouted(item, turn):
    return None if turn else " " + item["correct_word"].upper() + "  "


def backwards(item, turn):
    return None if turn else item["correct_word"][::-1]


CASES = [
    {"seed": 0, "policy": right, "note": "the hidden word"},
    {"seed": 1, "policy": shouted, "note": "the hidden word in capitals, spaces around"},
    {"seed": 2, "policy": backwards, "note": "the word backwards"},
    {"seed": 3, "actions": ["[1, 2, 3] ???"], "note": "a garbled answer"},
]
