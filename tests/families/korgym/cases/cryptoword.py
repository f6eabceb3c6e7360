"""Cases for 36-CryptoWord: every pair at once (a win at once); a win over several guesses
with an empty guess (no attempt used), a wrong pair, a repeated emoji and capitals along the
way; ten wrong guesses (the game ends, lost); garbled guesses without pairs."""

FOLDER = "36-CryptoWord"
MULTI_TURN = True


def pairs(item):
    return list(item["answer"].items())


def at_once(item, turn):
    return None if turn else ",".join(f"{e}={letter}" for e, letter in pairs(item))


def bit_by_bit(item, turn):
    known = pairs(item)
    half = len(known) // 2
    if turn == 0:
        return item["hint"]
    if turn == 1:
        return "   "
    if turn == 2:
        first = ", ".join(f"{e} = {letter.upper()}" for e, letter in known[:half])
        return first + ",🦉=z,oops"
    if turn == 3:
        e, letter = known[-1]
        return f"{e}=a,{e}={letter}"
    if turn < 6:
        return ",".join(f"{e}={letter}" for e, letter in known[half:])
    return None


def wrong(item, turn):
    return "😀=q,🐶=x" if turn < 12 else None


def garbled(item, turn):
    return ["hello there", "=", "x=y=z"][turn] if turn < 3 else None


CASES = [
    {"seed": 0, "policy": at_once, "note": "every pair at once"},
    {"seed": 1, "policy": bit_by_bit, "note": "a win over several guesses"},
    {"seed": 2, "policy": wrong, "note": "ten wrong guesses"},
    {"seed": 3, "policy": garbled, "note": "guesses without pairs"},
]
