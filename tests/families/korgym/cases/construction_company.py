"""Cases for 29-Construction_Company: the right total, one less, the total with spaces and
a plus sign (int reads it), the total with a unit (int fails), and an empty answer."""

FOLDER = "29-Construction_Company"
MULTI_TURN = False


def right(item, turn):
    return None if turn else item["answer"]


def one_less(item, turn):
    return None if turn else str(int(item["answer"]) - 1)


def signed(item, turn):
    return None if turn else " +" + item["answer"] + " "


def with_unit(item, turn):
    return None if turn else item["answer"] + " years"


CASES = [
    {"seed": 0, "policy": right, "note": "the right total"},
    {"seed": 1, "policy": right, "note": "the right total"},
    {"seed": 2, "policy": one_less, "note": "one year less"},
    {"seed": 3, "policy": signed, "note": "the right total with spaces and a plus sign"},
    {"seed": 4, "policy": with_unit, "note": "the right total followed by 'years'"},
    {"seed": 5, "actions": [""], "note": "nothing read from the reply"},
]
