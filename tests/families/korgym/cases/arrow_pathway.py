"""Cases for 14-Arrow-pathway: KORGym's own devices (which win), the same as tuples, no
devices, the devices in reverse order, a device without a cell, and text that is not a
Python list."""

FOLDER = "14-Arrow-pathway"
MULTI_TURN = False


def korgym_devices(item, turn):
    return None if turn else str(item["device_actions"])


def as_tuples(item, turn):
    return None if turn else str(tuple(tuple(device) for device in item["device_actions"]))


def reversed_devices(item, turn):
    return None if turn else str(item["device_actions"][::-1])


def first_letter_only(item, turn):
    return None if turn else str([[device[0]] for device in item["device_actions"]])


CASES = [
    {"seed": 0, "policy": korgym_devices, "note": "KORGym's own devices"},
    {"seed": 1, "policy": korgym_devices, "note": "KORGym's own devices"},
    {"seed": 2, "policy": as_tuples, "note": "KORGym's own devices, as tuples"},
    {"seed": 3, "actions": ["[]"], "note": "no devices"},
    {"seed": 0, "policy": reversed_devices, "note": "KORGym's devices in reverse order"},
    {"seed": 4, "policy": first_letter_only, "note": "devices without cells"},
    {"seed": 5, "actions": ["R 3 2, U 0 2"], "note": "not a Python list"},
]
