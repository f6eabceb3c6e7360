"""Cases for 44-city: the total, the total with a sign and spaces (KORGym reads it with
int()), and words around it (not read; 0); three cases only, as each board is some 70 kB.
Each case seeds Python's global generator with its own seed before /generate, since KORGym
draws the numbers of cities and roads from it before seeding."""

FOLDER = "44-city"
MULTI_TURN = False


def right(item, turn):
    return None if turn else item["answer"]


def signed(item, turn):
    return None if turn else " +" + item["answer"] + " "


def wordy(item, turn):
    return None if turn else "about " + item["answer"]


CASES = [
    {"seed": 0, "global_seed": 0, "policy": right, "note": "the total"},
    {"seed": 1, "global_seed": 1, "policy": signed, "note": "the total with a plus sign"},
    {"seed": 2, "global_seed": 2, "policy": wordy, "note": "words around the total"},
]
