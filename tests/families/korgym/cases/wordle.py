"""Cases for 33-wordle: the word at once, a wrong guess then the word in capitals with
spaces, ten wrong guesses (too short, too long, repeated letters, nothing, not a word)."""

FOLDER = "33-wordle"
MULTI_TURN = True


def at_once(item, turn):
    return item["secret_word"]


def second_try(item, turn):
    return "zzzz" if turn == 0 else "  " + item["secret_word"].upper() + " "


WRONG = [
    "ab",
    "abcdefghijklmnopqrstuvwxyz",
    "eeeeeeeeeeee",
    "",
    "Answer: x",
    "happy",
    "q-q",
    "123456",
    "stone",
    "tttt",
    "never reached",
]

CASES = [
    {"seed": 0, "policy": at_once, "note": "the word at once"},
    {"seed": 1, "policy": second_try, "note": "a wrong guess, then the word in capitals"},
    {"seed": 2, "actions": WRONG, "note": "ten wrong guesses end the game"},
    {"seed": 3, "policy": second_try, "note": "a wrong guess, then the word"},
]
