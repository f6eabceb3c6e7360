"""Cases for 25-Tetris: 20 pieces placed by a small greedy player (rows cleared), pieces
stacked in the first column until one no longer fits (the end), and actions KORGym reads
oddly: one number, three numbers, words, angles not a multiple of 90, negative, with a
degree sign, huge, and columns off the board."""

FOLDER = "25-Tetris"
MULTI_TURN = True


def turned(block):
    return [list(row) for row in zip(*block[::-1], strict=True)]


def drop(block, board, column):
    h, w = len(block), len(block[0])
    x = min(max(column - 1, 0), 10 - w)
    landed = None
    for y in range(10 - h + 1):
        if any(block[i][j] and board[y + i][x + j] for i in range(h) for j in range(w)):
            break
        landed = y
    if landed is None:
        return None
    board = [list(row) for row in board]
    for i in range(h):
        for j in range(w):
            if block[i][j]:
                board[landed + i][x + j] = 1
    kept = [row for row in board if sum(row) < 10]
    return [[0] * 10 for _ in range(10 - len(kept))] + kept, 10 - len(kept)


def value(board, lines):
    heights = [next((10 - i for i in range(10) if board[i][j]), 0) for j in range(10)]
    holes = sum(1 for j in range(10) for i in range(10) if not board[i][j] and 10 - i < heights[j])
    bumps = sum(abs(a - b) for a, b in zip(heights[:-1], heights[1:], strict=True))
    return -0.51 * sum(heights) + 0.76 * lines - 0.36 * holes - 0.18 * bumps


def greedy(item, turn):
    if turn >= 20:
        return None
    best, chosen, block = None, "1 0", item["last_block"]
    for quarter in range(4):
        for column in range(1, 12 - len(block[0])):
            placed = drop(block, item["board"], column)
            if placed and (best is None or value(*placed) > best):
                best, chosen = value(*placed), f"{column} {quarter * 90}"
        block = turned(block)
    return chosen


CASES = [
    {"seed": 0, "policy": greedy, "note": "20 pieces placed greedily"},
    {"seed": 1, "actions": ["1 0"] * 12, "note": "stacked in column 1 until the end"},
    {
        "seed": 2,
        "actions": [
            "4",
            "4 90 1",
            "four ninety",
            "3 45",
            "3 -90",
            "11 90\u00b0",
            "0 270",
            "5 4500",
            "-3 180",
            "",
            "7 90",
        ],
        "note": "odd actions",
    },
]
