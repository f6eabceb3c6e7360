"""Cases for 41-PVZ: nothing planted (the first zombie walks through and ends the game),
a fixed buying order (sunflowers, peashooters, torches, wall-nuts) with a fire chili when
a zombie comes near, up to 40 turns of defending the rows under attack (shooters, torches,
chilis), saving for three-line shooters on the edge rows (each game played to its end or
30-40 turns), and plantings KORGym reads loosely or skips: lower case, malformed, unknown,
out of range, a taken cell, too little sun."""

FOLDER = "41-PVZ"
MULTI_TURN = True
ORDER = (
    [("X", r, 0) for r in range(5)]
    + [("W", r, 1) for r in range(5)]
    + [("H", r, 4) for r in range(5)]
    + [("J", r, 5) for r in range(5)]
    + [("W", r, 2) for r in range(5)]
)
COST = {"X": 50, "W": 100, "S": 325, "J": 50, "H": 125, "F": 300}


def sun(item):
    return int(item["board"].split("Sun:")[1].split()[0])


def grid(item):
    rows = [line.split("|")[1:] for line in item["board"].splitlines() if line.startswith("Line")]
    return [[cell.strip() for cell in row] for row in rows]


def nothing(item, turn):
    return ""


def buying(item, turn):
    if turn >= 30:
        return None
    have, cells, chosen = sun(item), grid(item), []
    for r, row in enumerate(cells):
        if any(mark in row[c] for c in (0, 1) for mark in "NRBI") and have >= 300:
            chosen.append(f"F {r} 6")
            have -= 300
    for kind, r, c in ORDER:
        if cells[r][c] == "0" and have >= COST[kind]:
            chosen.append(f"{kind} {r} {c}")
            have -= COST[kind]
    return ";".join(chosen)


def defending(item, turn):
    """Peashooters (columns 1-3) in rows with zombies, nearest first, a torch at column
    4 behind them, a chili when a zombie reaches column 1; then sunflowers."""
    if turn >= 40:
        return None
    have, cells, chosen = sun(item), grid(item), []
    threats = []
    for r, row in enumerate(cells):
        cols = [c for c, cell in enumerate(row) if any(mark in cell for mark in "NRBI")]
        if cols:
            threats.append((min(cols), r))
    for near, r in sorted(threats):
        row = cells[r]
        if near <= 1 and have >= 300 and row[6] == "0":
            chosen.append(f"F {r} 6")
            have -= 300
            continue
        free = [c for c in (1, 2, 3) if row[c] == "0"]
        if free and have >= 100:
            chosen.append(f"W {r} {free[0]}")
            have -= 100
        if "W" in row and row[4] == "0" and have >= 125:
            chosen.append(f"H {r} 4")
            have -= 125
    for r in range(5):
        if cells[r][0] == "0" and have >= 50:
            chosen.append(f"X {r} 0")
            have -= 50
    return ";".join(chosen)


def three_lines(item, turn):
    if turn >= 30:
        return None
    plan = ["X 0 0", "X 4 0", "S 0 1", "S 4 1", "X 2 0", "S 2 2", "H 0 6"]
    cells = grid(item)
    for planting in plan:
        kind, r, c = planting.split()
        if cells[int(r)][int(c)] == "0":
            return planting if sun(item) >= COST[kind] else ""
    return ""


CASES = [
    {"seed": 0, "policy": nothing, "note": "nothing planted"},
    {"seed": 1, "policy": buying, "note": "a fixed buying order with chilis"},
    {"seed": 4, "policy": defending, "note": "defending the rows under attack"},
    {"seed": 2, "policy": three_lines, "note": "three-line shooters on the edge rows"},
    {
        "seed": 3,
        "actions": [
            "x 1 0",
            "W 9 9;Q 1 1;W a b;W 1;;  ",
            "X 1 0;J 2 6",
            "W 2 5",
            "",
            "F 2 3",
            "w 2 +1 ; j 2 4",
            "H 2 3 extra",
        ],
        "note": "loose, skipped and unaffordable plantings",
    },
]
