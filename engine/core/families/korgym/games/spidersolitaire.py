"""37-SpiderSolitaire (strategic reasoning): KORGym's Spider Solitaire, one action a turn.

As KORGym plays it: two 52-card decks (four suits) are shuffled, cut at a random point
near the middle and the part after the cut shuffled again; the first four columns get six
cards, the other six five, only the last card of each face up; the 50 cards left are the
stock. An action is a move ``(A,4,B)`` (column, index of the first card, column; the
parentheses optional, columns in any case) or ``hit``. A move takes the cards from that
index to the end of the column, which must be face up and, if more than one, a run of one
suit with ranks falling by one; it may go onto an empty column or onto a card one rank
higher of any suit. ``hit`` deals one stock card face up onto each column, while the stock
holds at least ten cards and no column is empty. A new last card of a column turns face
up. A run of 13 face-up cards of one suit from King to Ace anywhere in a column is removed
at once and scores 1; the game ends when all eight are removed, or after KORGym's 100
turns. Every action uses a turn, whether KORGym accepts it or not; an action it refuses
changes nothing else.

KORGym's flaws, kept here:

* Its ``generate`` ignores the seed it is sent: it draws a seed from 1 to 100,000 from
  Python's global generator and deals from that. Here the seed is drawn as KORGym's
  server would draw it had its global generator last been seeded with the task's seed
  (the fixtures are recorded so), then the deal is KORGym's for that seed.
* Its server keeps one game, the last one generated, in a global: ``verify`` plays on it
  and ignores the board in the item, so in KORGym's own evaluation (20 items generated,
  then played turn by turn together) every item's actions land on that one game. Here
  each task keeps its own game (KORGym run one game at a time).
* The rules say ``hit`` is for when no move is left; the code allows it at any time.
* The action is stripped of parentheses before spaces, so ``" (A,4,B)"`` (a leading
  space) or ``"(A,4,B) "`` is not read as a move (a turn lost); ``A,4,B`` is.
* A ten of the board is printed with three characters (``10♥``), shifting its row.

The score is the count of runs removed (0 to 8), so ``success`` needs a threshold: a game
counts as won when at least one run is removed. The reference knows the face-down cards
and the stock (it is the server's), and searches for the line that removes the most runs
in the 100 turns (``GameSpider.reference`` says how well that does).
"""

from __future__ import annotations

import heapq
import random
from functools import lru_cache
from typing import Any, NamedTuple

from engine.core.families import display as draw
from engine.core.families.korgym.common import MAX_TURNS, KorgymGame

PROMPT = (
    "\n"
    "You are a Spider\xa0Solitaire expert. After I show you the current board, choose the "
    "best next action and reply with:\n"
    "\n"
    "  1. (Optional) Your reasoning.\n"
    "  2. A final line in exactly this format:  \n"
    "     Answer: $YOUR_ANSWER  \n"
    "\n"
    "Where '$YOUR_ANSWER' is one of:  \n"
    "- A move '(FromColumn,StartIndex,ToColumn)', e.g. '(A,4,B)'  \n"
    "- 'hit' to deal new cards  \n"
    "\n"
    "### Rules\n"
    "- **Goal**: Build 8 complete K→A sequences.  \n"
    "- **Move**: You may relocate any descending, same‐suit run onto a column whose top "
    "card is exactly one rank higher (or onto an empty column).  \n"
    "- **Deal**: If no legal moves remain and the deck has ≥10 cards and every column is "
    "non‑empty, use 'hit' (deals one card to each of the 10 columns; max ⌊deck_size/10⌋ "
    "hits).  \n"
    "- **Score**: Start at 0; +1 for each K→A sequence removed; no penalties for moves "
    "or hits.  \n"
    "- **Turn Limit**: The game also ends after 100 epochs (moves or hits).\n"
    "\n"
    "### Visibility & Completion\n"
    "1. Only the bottom card of each column is face‑up; hidden cards are shown as 'XX'.  "
    "\n"
    "2. After you move a face‑up run away, the new bottom card flips face‑up "
    "automatically.  \n"
    "3. Completing a full K→A same‑suit sequence in any column removes those 13 cards "
    "immediately and awards +1 point.  \n"
    "\n"
    "### Columns & Format\n"
    "- Columns are labeled A–J (indices 0–9).  \n"
    "- Always output exactly:  'Answer: $YOUR_ANSWER',e.g.'Answer: (A,4,B)' means move "
    "cards from column A starting at index 4 to column B.\n"
    "\n"
    "\n"
    "Current Game Board:\n"
    "{board}\n"
)

SUITS = ("♥", "♦", "♣", "♠")
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
LABELS = "ABCDEFGHIJ"
COLUMNS = 10
HIDDEN = ["unknown", "unknown"]
RUN = 13  # King to Ace
SETS = 8


# A card is a number here: suit index × 13 + rank index (Ace 0 … King 12).
NAMES = [[suit, rank] for suit in SUITS for rank in RANKS]
CODES = {(suit, rank): i for i, (suit, rank) in enumerate(NAMES)}


def code(card: list[str]) -> int:
    return CODES[card[0], card[1]]


def named(card: int) -> list[str]:
    return NAMES[card][:]


def deal(seed: int) -> tuple[list[list[int]], list[int]]:
    """KORGym's columns and stock for its inner seed: the shuffle, the cut between 42 and
    62 with the part after it shuffled again, six cards to each of the first four columns
    and five to the others, column by column from the top of the pack."""
    rng = random.Random(seed)
    pack = [suit * RUN + rank for _ in range(2) for suit in range(4) for rank in range(RUN)]
    rng.shuffle(pack)
    cut = rng.randint(len(pack) // 2 - 10, len(pack) // 2 + 10)
    rest = pack[cut:]
    rng.shuffle(rest)
    pack = pack[:cut] + rest
    columns = []
    for size in (6,) * 4 + (5,) * 6:
        columns.append(pack[:size])
        pack = pack[size:]
    return columns, pack


class Table:
    """The whole game: the columns (cards from the top of the column down), how many of
    each column's first cards are face down (face-down cards are always a column's first:
    cards are only added face up at the end, and a column's new last card turns up), the
    stock and the runs removed. The rules are KORGym's ``SpiderSolitaire``."""

    __slots__ = ("columns", "down", "stock", "removed")

    def __init__(self, columns, down, stock, removed):
        self.columns = columns
        self.down = down
        self.stock = stock
        self.removed = removed

    @classmethod
    def of(cls, item: dict[str, Any]) -> Table:
        return cls(
            [[code(card) for card in column] for column in item["cards"]],
            list(item["down"]),
            [code(card) for card in item["stock"]],
            item["removed"],
        )

    def clone(self) -> Table:
        return Table([c[:] for c in self.columns], self.down[:], self.stock[:], self.removed)

    def visible(self) -> list[list[list[str]]]:
        return [
            [HIDDEN[:] if i < self.down[c] else named(card) for i, card in enumerate(column)]
            for c, column in enumerate(self.columns)
        ]

    def can_move(self, source: int, start: int, target: int) -> bool:
        if not (0 <= source < COLUMNS and 0 <= target < COLUMNS):
            return False
        column = self.columns[source]
        if not (0 <= start < len(column)) or start < self.down[source]:
            return False
        for i in range(start + 1, len(column)):
            if column[i] != column[i - 1] - 1 or column[i] // RUN != column[start] // RUN:
                return False
        onto = self.columns[target]
        return not onto or column[start] % RUN == onto[-1] % RUN - 1

    def move(self, source: int, start: int, target: int) -> int:
        """Move (already checked); the runs it completes."""
        column = self.columns[source]
        self.columns[target].extend(column[start:])
        del column[start:]
        if self.down[source] >= len(column) > 0:
            self.down[source] = len(column) - 1
        return self._fold()

    def can_hit(self) -> bool:
        return len(self.stock) >= COLUMNS and all(self.columns)

    def hit(self) -> int:
        for column in self.columns:
            column.append(self.stock.pop(0))
        return self._fold()

    def _fold(self) -> int:
        """KORGym's scan for complete runs: in each column from the end up, a window of 13
        face-up cards King to Ace of one suit is removed and the scan starts again from
        the new end; then every column's last card turns face up."""
        removed = 0
        for c, column in enumerate(self.columns):
            i = len(column) - 1
            while i >= RUN - 1:
                first = i - RUN + 1
                window = column[first : i + 1]
                if first >= self.down[c] and window == list(range(window[0], window[0] - RUN, -1)):
                    if window[0] % RUN == RUN - 1:
                        del column[first : i + 1]
                        removed += 1
                        i = len(column) - 1
                        continue
                i -= 1
            if self.down[c] >= len(column):
                self.down[c] = max(len(column) - 1, 0)
        self.removed += removed
        return removed


def read_move(action: str) -> tuple[int, int, int] | None:
    """KORGym's reading of a move: parentheses stripped from both ends (before any space),
    three parts split at commas, each column one letter (any case, spaces around), the
    index a Python integer; None for anything it cannot read."""
    parts = action.strip("()").split(",")
    if len(parts) != 3:
        return None
    try:
        source = ord(parts[0].strip().upper()) - ord("A")
        start = int(parts[1].strip())
        target = ord(parts[2].strip().upper()) - ord("A")
    except (TypeError, ValueError):
        return None
    return source, start, target


def card_text(card: list[str]) -> str:
    return "XX" if card[0] == "unknown" else f"{card[1]}{card[0][0]}"


class GameSpider(KorgymGame):
    name = "spidersolitaire"
    folder = "37-SpiderSolitaire"
    title = "Spider Solitaire"
    dimension = "SR"
    multi_turn = True
    log_scaled = True
    answer_format = "a move (A,4,B) or hit"

    def generate(self, seed, rng):
        columns, stock = deal(rng.randint(1, 100000))
        down = [len(column) - 1 for column in columns]
        table = Table(columns, down, stock, 0)
        return {
            "board": table.visible(),
            "score": 0,
            "epoch": 1,
            "is_end": False,
            "action": "",
            "response": [],
            "prompt": "",
            # The server's own: every card, face down or not, and the stock.
            **self._hidden(table),
        }

    @staticmethod
    def _hidden(table: Table) -> dict[str, Any]:
        return {
            "cards": [[named(card) for card in column] for column in table.columns],
            "down": table.down[:],
            "stock": [named(card) for card in table.stock],
            "removed": table.removed,
        }

    def board(self, item):
        board = item["board"]
        text = "  " + " ".join(LABELS[: len(board)]) + "\n"
        text += "  " + "-" * (2 * len(board) - 1) + "\n"
        for i in range(max(len(column) for column in board)):
            row = [card_text(column[i]) if i < len(column) else "  " for column in board]
            text += f"{i} {' '.join(row)}\n"
        text += f"Epoch: {item['epoch']}/100\n"
        text += f"The remaining chances of 'hit': {len(item['stock']) // COLUMNS}\n"
        return PROMPT.format(board=text)

    def verify(self, item, action, rng):
        item = dict(item)
        item["action"] = action
        item["epoch"] += 1
        table = Table.of(item)
        if action.strip().lower() == "hit":
            if not table.can_hit():
                return item
            table.hit()
        else:
            move = read_move(action)
            if move is None or not table.can_move(*move):
                return item
            table.move(*move)
        item.update(self._hidden(table))
        item["board"] = table.visible()
        item["score"] = table.removed
        item["is_end"] = table.removed == SETS
        return item

    def display(self, item, *, finished=False):
        """The columns as cards (face-down ones blank until the game has ended), with the
        runs removed, the hits left and the turns taken."""
        table = Table.of(item)
        piles = []
        for c, column in enumerate(table.columns):
            shown = []
            for i, card in enumerate(column):
                suit, rank = named(card)
                hidden = i < table.down[c] and not finished
                shown.append(draw.card(rank, suit, face_down=hidden))
            piles.append((LABELS[c], shown))
        caption = (
            f"Runs removed: {table.removed} of {SETS} · hits left: "
            f"{len(table.stock) // COLUMNS} · turns taken: {item['epoch'] - 1} of {MAX_TURNS}"
        )
        return draw.cards(piles, caption=caption)

    def reference(self, item, rng):
        """The beam searches' best line (``plan``): it removes at least one run in 21 of
        the 30 deals of seeds 0-29 (33 runs in all), in about 3 s of CPU a deal."""
        return plan(Table.of(item), MAX_TURNS - (item["epoch"] - 1))


# -- the reference's search -------------------------------------------------------------
# A state: the columns (tuples of cards), the face-down counts, how many stock cards were
# dealt, the runs removed. The stock's order is known (the reference is the server's).
BEAM = 120


class Weights(NamedTuple):
    """What the search's value counts, and how much."""

    removed: int  # a run removed
    down: int  # a face-down card (to be uncovered; it costs)
    empty: int  # an empty column
    suited: int  # a link within a run of one suit, times the run's length so far
    ranked: int  # a link onto a card one rank higher of another suit
    king: int  # a run of one suit from a King at a column's end, its length squared


# The search is run with each, and the line removing the most runs is played: each clears
# a run in deals where the other does not (the first alone: 17 of seeds 0-29's 30 deals).
PORTFOLIO = (Weights(100_000, 25, 60, 12, 4, 10), Weights(100_000, 40, 60, 12, 4, 6))


@lru_cache(maxsize=200_000)
def _column_value(column: tuple[int, ...], down: int, weights: Weights) -> int:
    """How promising one column is: face-down cards cost, an empty column is worth a
    place to move to, each link of a face-up card onto the card one rank higher counts,
    the more within a longer run of one suit, and a run of one suit from a King at the
    column's end (it grows into a complete run) counts more than in proportion."""
    if not column:
        return weights.empty
    value = -weights.down * down
    run = 1
    for i in range(down + 1, len(column)):
        above, card = column[i - 1], column[i]
        if card == above - 1 and card // RUN == above // RUN:
            run += 1
            value += weights.suited * run
        else:
            if card % RUN == above % RUN - 1:
                value += weights.ranked
            run = 1
    first = len(column) - run
    if column[first] % RUN == RUN - 1:
        value += weights.king * run * run
    elif first == 0:  # nothing under it either
        value += weights.suited * run
    return value


def _value(state, weights: Weights) -> int:
    columns, down, _, removed = state
    values = map(_column_value, columns, down, (weights,) * COLUMNS)
    return weights.removed * removed + sum(values)


def _folded(column: tuple[int, ...], down: int) -> tuple[tuple[int, ...], int, int]:
    """The column with a complete run at its end removed (the only place one can form),
    its new face-down count and the runs removed."""
    if (
        len(column) - RUN >= down
        and column[-RUN] % RUN == RUN - 1
        and column[-RUN:] == tuple(range(column[-RUN], column[-RUN] - RUN, -1))
    ):
        column = column[:-RUN]
        return column, min(down, max(len(column) - 1, 0)), 1
    return column, down, 0


def _children(node, stock, weights: Weights):
    """The positions one action away: (value, state, action) for each. A part of a run of
    one suit moves only onto the card of its suit one rank higher; to an empty column only
    whole runs go (never a whole column)."""
    value, (columns, down, dealt, removed) = node[0], node[1]
    by_rank: dict[int, list[int]] = {}  # the columns ending in a card of each rank
    by_card: dict[int, list[int]] = {}  # and in each card
    empty = []
    for c, column in enumerate(columns):
        if column:
            by_rank.setdefault(column[-1] % RUN, []).append(c)
            by_card.setdefault(column[-1], []).append(c)
        else:
            empty.append(c)
    for source, column in enumerate(columns):
        if not column:
            continue
        first = len(column) - 1
        while (
            first > down[source]
            and column[first - 1] == column[first] + 1
            and column[first - 1] // RUN == column[first] // RUN
        ):
            first -= 1
        others = value - _column_value(column, down[source], weights)
        for start in range(first, len(column)):
            if start == first:
                targets = by_rank.get(column[start] % RUN + 1, [])
                if empty and start:
                    targets = targets + empty
            else:
                targets = by_card.get(column[start] + 1, [])
            if not targets:
                continue
            moved = column[start:]
            left = column[:start]
            left_down = down[source]
            if left_down >= len(left) > 0:
                left_down = len(left) - 1
            base = others + _column_value(left, left_down, weights)
            for target in targets:
                onto, onto_down, done = _folded(columns[target] + moved, down[target])
                new_columns = list(columns)
                new_down = list(down)
                new_columns[source], new_down[source] = left, left_down
                new_columns[target], new_down[target] = onto, onto_down
                worth = (
                    base
                    - _column_value(columns[target], down[target], weights)
                    + _column_value(onto, onto_down, weights)
                    + weights.removed * done
                )
                state = (tuple(new_columns), tuple(new_down), dealt, removed + done)
                yield worth, state, f"({LABELS[source]},{start},{LABELS[target]})"
    if len(stock) - dealt >= COLUMNS and all(columns):
        new_columns, new_down, done = [], [], 0
        for c, column in enumerate(columns):
            folded, folded_down, count = _folded(column + (stock[dealt + c],), down[c])
            new_columns.append(folded)
            new_down.append(folded_down)
            done += count
        state = (tuple(new_columns), tuple(new_down), dealt + COLUMNS, removed + done)
        yield _value(state, weights), state, "hit"


def plan(table: Table, turns: int, beam: int = BEAM) -> list[str]:
    """The line of the search (``_search``) that removes the most runs, with each weighting
    of ``PORTFOLIO`` (the first on a tie, unless it had to be padded)."""
    lines = [_search(table, turns, beam, weights) for weights in PORTFOLIO]
    _column_value.cache_clear()  # its columns are this deal's only
    return max(lines, key=lambda line: (line[0], -line[1]))[2]


def _search(table: Table, turns: int, beam: int, weights: Weights) -> tuple[int, int, list[str]]:
    """A beam search over the game's actions with everything known: each turn keeps the
    ``beam`` most promising positions (``_value``: runs removed first), returning to a
    position seen before only when nothing else is left, and the line to the position with
    the most runs removed that is reached last is played. A line that stops early (no
    action left at all) is padded with ``hit``, which is then refused and changes
    nothing. Returns the runs removed, the padding and the line."""
    stock = tuple(table.stock)
    state = (
        tuple(tuple(column) for column in table.columns),
        tuple(table.down),
        0,
        table.removed,
    )
    seen = {state}
    # A node: (value, state, (action, parent node) or None).
    layer = [(_value(state, weights), state, None)]
    best = layer[0]
    for _ in range(turns):
        found = {}
        for node in layer:
            for worth, child, action in _children(node, stock, weights):
                if child not in seen and child not in found:
                    found[child] = (worth, child, (action, node))
        if not found:  # every position one action away was seen: go back to one
            for node in layer:
                for worth, child, action in _children(node, stock, weights):
                    found.setdefault(child, (worth, child, (action, node)))
            if not found:
                break
        seen.update(found)
        layer = heapq.nlargest(beam, found.values(), key=lambda node: node[0])
        if layer[0][1][3] >= best[1][3]:
            best = layer[0]
        if best[1][3] >= SETS:
            break
    actions = []
    node = best
    while node[2] is not None:
        action, node = node[2]
        actions.append(action)
    actions.reverse()
    padding = turns - len(actions) if best[1][3] < SETS else 0
    return best[1][3], padding, actions + ["hit"] * padding


GAME = GameSpider()
