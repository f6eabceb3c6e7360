"""Cases for 21-Anagramania: the hidden word, the same in capitals with spaces (KORGym strips
and ignores case), the anagram as shown (wrong), and an empty answer."""

FOLDER = "21-Anagramania"
MULTI_TURN = False


def right(item, turn):
    return None if turn else item["correct_word"]


def shouted(item, turn):
    return None if turn else "  " + item["correct_word"].upper() + " "


def as_shown(item, turn):
    return None if turn else item["board"].splitlines()[-1].replace(" ", "")


CASES = [
    {"seed": 0, "policy": right, "note": "the hidden word"},
    {"seed": 1, "policy": shouted, "note": "the hidden word in capitals, spaces around"},
    {"seed": 2, "policy": as_shown, "note": "the shuffled letters as shown"},
    {"seed": 3, "actions": [""], "note": "nothing read from the reply"},
]
