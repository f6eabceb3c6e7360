"""Cases for 2-GuessWord: a fitting word, the same in capitals (accepted), the same with a
space before it (KORGym does not strip: wrong length), a word of the right length that
breaks a rule, a string of the right length that is no word, and an empty answer."""

FOLDER = "2-GuessWord"
MULTI_TURN = False


def fitting(item):
    return sorted(item["current_valid_words"])[0]


def right(item, turn):
    return None if turn else fitting(item)


def shouted(item, turn):
    return None if turn else fitting(item).upper()


def spaced(item, turn):
    return None if turn else " " + fitting(item)


def rule_broken(item, turn):
    if turn:
        return None
    word = fitting(item)
    pos, letter = item["rules"][0]
    other = "a" if letter != "a" else "b"
    return word[:pos] + other + word[pos + 1 :]


def no_word(item, turn):
    if turn:
        return None
    word = ["q"] * item["length"]
    for pos, letter in item["rules"]:
        word[pos] = letter
    return "".join(word)


CASES = [
    {"seed": 0, "policy": right, "note": "a fitting word"},
    {"seed": 1, "policy": shouted, "note": "a fitting word in capitals"},
    {"seed": 2, "policy": spaced, "note": "a fitting word after a space"},
    {"seed": 3, "policy": rule_broken, "note": "one rule's letter changed"},
    {"seed": 4, "policy": no_word, "note": "the rules' letters among q's"},
    {"seed": 5, "actions": [""], "note": "nothing read from the reply"},
]
