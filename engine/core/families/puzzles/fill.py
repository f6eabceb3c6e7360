"""Dense crossword grids: a symmetric block pattern, then a fill search over the word list.

This is what lets a generated crossword look like LR²Bench's (American-style grids: every
white square in an across and a down entry, 70–78 entries at 15×15, white share about
0.83). Two steps, both deterministic in the ``rng`` they are given:

1. ``pattern``: blocks are added in pairs symmetric about the centre (a printed crossword's
   rotational symmetry), each pair kept only when every run of white squares, across and
   down, stays 0 or at least 3 long and the white squares stay connected; squares on long
   runs are drawn more often, so entries stay short enough to fill. It stops when the grid
   has its number of entries and is no whiter than ``most_white``.
2. ``fill_pattern``: a backtracking search over the entries (slots). Each slot keeps the
   set of words that still fit its letters as a bitset over the words of its length (one
   bit per word, an AND per crossing letter); the search fills the slot with the fewest
   candidates first, trying a few candidates drawn with a lean towards common words and
   ordered by how many words they leave the crossing slots (none left: not tried). A word
   is used once, and never where it appears in another entry's clue or its clue names
   another entry. A search that runs out of its step budget gives up; the caller draws a
   new pattern.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

from engine.core.families.puzzles.words import fill_entries

BLOCK = "#"
OPEN = "."


# Candidates drawn for a slot, and tried of those (best first); slots with more words than
# WEAK are not used to narrow their crossings.
DRAWN, TRIED, WEAK = 16, 6, 400
GAIN, POWER = 0, 4


class FillFailed(Exception):
    """The search spent its budget (or the pattern has no fill): draw another pattern."""


# -- the block pattern ----------------------------------------------------------------------


def runs(line: Sequence[str]) -> list[tuple[int, int]]:
    """(start, length) of every run of open squares in a row or column."""
    found, start = [], None
    for i, cell in enumerate([*line, BLOCK]):
        if cell != BLOCK and start is None:
            start = i
        elif cell == BLOCK and start is not None:
            found.append((start, i - start))
            start = None
    return found


def slots_of(grid: Sequence[Sequence[str]]) -> list[tuple[tuple[int, int], ...]]:
    """Every entry (a run of at least two open squares) as its squares, across first."""
    n = len(grid)
    found = []
    for r in range(n):
        for start, length in runs(grid[r]):
            if length >= 2:
                found.append(tuple((r, start + i) for i in range(length)))
    for c in range(n):
        for start, length in runs([grid[r][c] for r in range(n)]):
            if length >= 2:
                found.append(tuple((start + i, c) for i in range(length)))
    return found


def _line_ok(line) -> bool:
    return all(length >= 3 for _, length in runs(line))


def _connected(grid) -> bool:
    n = len(grid)
    open_cells = [(r, c) for r in range(n) for c in range(n) if grid[r][c] != BLOCK]
    if not open_cells:
        return False
    seen = {open_cells[0]}
    todo = [open_cells[0]]
    while todo:
        r, c = todo.pop()
        for nr, nc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if 0 <= nr < n and 0 <= nc < n and grid[nr][nc] != BLOCK and (nr, nc) not in seen:
                seen.add((nr, nc))
                todo.append((nr, nc))
    return len(seen) == len(open_cells)


def _run_maps(grid) -> tuple[list[list[tuple[int, int]]], list[list[tuple[int, int]]]]:
    """For every square, the (start, length) of its across run and of its down run."""
    n = len(grid)
    across = [[(0, 0)] * n for _ in range(n)]
    down = [[(0, 0)] * n for _ in range(n)]
    for r in range(n):
        for start, length in runs(grid[r]):
            for c in range(start, start + length):
                across[r][c] = (start, length)
    for c in range(n):
        for start, length in runs([row[c] for row in grid]):
            for r in range(start, start + length):
                down[r][c] = (start, length)
    return across, down


def pattern(
    rng,
    size: int,
    entries: int,
    most_white: float = 0.92,
    longest: int = 15,
    least_white: float = 0.0,
) -> list[list[str]] | None:
    """A symmetric block pattern with at least ``entries`` entries, no entry shorter than 3
    or longer than ``longest``, white share between ``least_white`` and ``most_white``;
    None when the draw got stuck or went below ``least_white`` (the caller draws again)."""
    n = size
    grid = [[OPEN] * n for _ in range(n)]
    blocks = 0
    while True:
        slots = slots_of(grid)
        white = 1 - blocks / (n * n)
        if white < least_white:
            return None
        if (
            len(slots) >= entries
            and white <= most_white
            and max(len(slot) for slot in slots) <= longest
        ):
            return grid
        across, down = _run_maps(grid)
        weights = []
        for r in range(n):
            for c in range(n):
                if grid[r][c] == BLOCK or (r, c) > (n - 1 - r, n - 1 - c):
                    continue
                (a_start, a_len), (d_start, d_len) = across[r][c], down[r][c]
                # A block inside a run splits it (one entry more); at its end it only
                # shortens it. Long runs are broken first, so entries stay fillable.
                gain = (a_start < c < a_start + a_len - 1) + (d_start < r < d_start + d_len - 1)
                weights.append(((1 + GAIN * gain) * max(a_len, d_len) ** POWER, r, c))
        # A weighted random order (Efraimidis–Spirakis keys): heavier squares come first.
        weights.sort(key=lambda item: -(rng.random() ** (1 / item[0])))
        for _, r, c in weights:
            pr, pc = n - 1 - r, n - 1 - c
            grid[r][c] = grid[pr][pc] = BLOCK
            lines = [grid[r], grid[pr], [row[c] for row in grid], [row[pc] for row in grid]]
            if all(_line_ok(line) for line in lines) and _connected(grid):
                blocks += 1 if (r, c) == (pr, pc) else 2
                break
            grid[r][c] = grid[pr][pc] = OPEN
        else:
            return None


def _longest(grid) -> int:
    return max(len(slot) for slot in slots_of(grid))


# -- the word index ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Index:
    """The fill words of one length, commonest first, with a bitset per (position, letter)."""

    words: tuple[str, ...]
    clues: tuple[str, ...]
    masks: tuple[tuple[int, ...], ...]  # masks[position][letter] -> bitset of words
    everything: int


@cache
def index(length: int) -> Index:
    rows = sorted(
        (entry for entry in fill_entries() if len(entry[0]) == length),
        key=lambda entry: (-entry[2], entry[0]),
    )
    words = tuple(row[0] for row in rows)
    masks = []
    for position in range(length):
        bits = [bytearray((len(words) + 8) // 8) for _ in range(26)]
        for number, word in enumerate(words):
            bits[ord(word[position]) - 65][number >> 3] |= 1 << (number & 7)
        masks.append(tuple(int.from_bytes(b, "little") for b in bits))
    return Index(words, tuple(row[1] for row in rows), tuple(masks), (1 << len(words)) - 1)


def tokens(text: str) -> frozenset[str]:
    return frozenset(re.findall(r"[A-Z]+", text.upper()))


# -- the fill search --------------------------------------------------------------------------


def fill_pattern(
    rng,
    grid: Sequence[Sequence[str]],
    clue_for: Callable[[str, str], str],
    banned: frozenset[str] = frozenset(),
    budget: int = 4000,
) -> list[tuple[str, str, tuple[tuple[int, int], ...]]]:
    """(word, clue, squares) for every slot of ``grid``, or ``FillFailed``. ``banned``
    words never go in (those of the puzzle's own instructions); ``clue_for(word,
    definition)`` gives the clue printed (a written clue where one is active)."""
    slots = slots_of(grid)
    indexes = [index(len(slot)) for slot in slots]
    if any(not ix.words for ix in indexes):
        raise FillFailed("no words of some length")
    at: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for number, slot in enumerate(slots):
        for position, cell in enumerate(slot):
            at.setdefault(cell, []).append((number, position))
    # crossings[s] = [(position in s, other slot, position in other)]
    crossings = [
        [
            (position, other, their)
            for position, cell in enumerate(slot)
            for other, their in at[cell]
            if other != number
        ]
        for number, slot in enumerate(slots)
    ]
    candidates = [ix.everything for ix in indexes]
    sizes = [len(ix.words) for ix in indexes]
    chosen: list[int | None] = [None] * len(slots)
    used: set[str] = set()
    clue_tokens: Counter[str] = Counter()
    steps = deepest = 0
    clue_cache: dict[str, tuple[str, frozenset[str]]] = {}

    def clue_of(slot: int, number: int) -> tuple[str, frozenset[str]]:
        ix = indexes[slot]
        word = ix.words[number]
        if word not in clue_cache:
            clue = clue_for(word, ix.clues[number])
            clue_cache[word] = (clue, tokens(clue))
        return clue_cache[word]

    def allowed(slot: int, number: int) -> bool:
        word = indexes[slot].words[number]
        if word in used or word in banned or clue_tokens[word]:
            return False
        return not (clue_of(slot, number)[1] & used)

    def draw(slot: int, count: int) -> list[int]:
        """Up to ``count`` candidate numbers, leaning towards the commonest (low numbers)."""
        bits = candidates[slot]
        total = bits.bit_count()
        if total <= count * 3:
            found = []
            while bits:
                low = bits & -bits
                found.append(low.bit_length() - 1)
                bits ^= low
            rng.shuffle(found)
            return found
        size = bits.bit_length()
        found = set()
        for _ in range(count * 12):
            number = int(size * rng.random() ** 2)
            if (bits >> number) & 1:
                found.add(number)
                if len(found) == count:
                    break
        return sorted(found)

    def letters_at(slot: int, position: int) -> int:
        """The letters (a 26-bit set) the slot's candidates still allow at ``position``."""
        bits, found = candidates[slot], 0
        if bits.bit_count() <= 26:  # few words: read their letters
            words = indexes[slot].words
            while bits:
                low = bits & -bits
                found |= 1 << (ord(words[low.bit_length() - 1][position]) - 65)
                bits ^= low
            return found
        masks = indexes[slot].masks[position]
        for letter in range(26):
            if bits & masks[letter]:
                found |= 1 << letter
        return found

    def propagate(start: int) -> bool:
        """Narrow the crossing slots to the words that agree with some candidate of each
        slot they cross, until nothing changes (arc consistency); False on a dead end."""
        queue, queued = [start], {start}
        while queue:
            slot = queue.pop()
            queued.discard(slot)
            if slot != start and candidates[slot].bit_count() > WEAK:
                continue  # so many words allow (nearly) every letter: not worth the time
            for position, other, their in crossings[slot]:
                if chosen[other] is not None:
                    continue
                letters = letters_at(slot, position)
                if letters == (1 << 26) - 1:
                    continue
                masks, allowed = indexes[other].masks[their], 0
                for letter in range(26):
                    if letters >> letter & 1:
                        allowed |= masks[letter]
                narrowed = candidates[other] & allowed
                if narrowed != candidates[other]:
                    if not narrowed:
                        return False
                    candidates[other] = narrowed
                    if other not in queued:
                        queue.append(other)
                        queued.add(other)
        return True

    def search(depth: int) -> bool:
        nonlocal steps, deepest
        deepest = max(deepest, depth)
        # The slot with the fewest words left, as a share of the words of its length (short
        # words are fewer to start with: counted plainly, every 3-letter slot would go
        # first, and the long ones, which are the hard ones to cross, last).
        best, best_share, best_count = -1, math.inf, 0
        for slot, bits in enumerate(candidates):
            if chosen[slot] is None:
                count = bits.bit_count()
                if count <= 1:
                    best, best_count = slot, count
                    break
                share = count / sizes[slot]
                if share < best_share:
                    best, best_share, best_count = slot, share, count
        if best < 0:
            return True
        if best_count == 0:
            return False
        ix = indexes[best]
        options = []
        for number in draw(best, DRAWN):
            if not allowed(best, number):
                continue
            word = ix.words[number]
            score = 0.0
            for position, other, their in crossings[best]:
                if chosen[other] is not None:
                    continue
                left = (
                    candidates[other] & indexes[other].masks[their][ord(word[position]) - 65]
                ).bit_count()
                if left == 0:
                    break
                score += math.log(left)
            else:
                options.append((score + rng.random() * 0.5, number))
        options.sort(reverse=True)
        for _, number in options[:TRIED]:
            steps += 1
            if steps > budget:
                raise FillFailed(f"out of steps, {deepest} of {len(slots)} slots filled at most")
            word = ix.words[number]
            saved = candidates[:]
            candidates[best] = 1 << number
            chosen[best] = number
            used.add(word)
            clue_tokens.update(clue_of(best, number)[1])
            if propagate(best) and search(depth + 1):
                return True
            clue_tokens.subtract(clue_of(best, number)[1])
            used.discard(word)
            chosen[best] = None
            candidates[:] = saved
        return False

    if not search(0):
        raise FillFailed(f"no fill, {deepest} of {len(slots)} slots filled at most")
    return [
        (indexes[s].words[n], clue_of(s, n)[0], slot)
        for s, (n, slot) in enumerate(zip(chosen, slots, strict=True))
    ]


@dataclass(frozen=True)
class Shape:
    """What a grid of one size should look like (LR²Bench's figures for its sizes)."""

    least_entries: int
    most_entries: int
    least_white: float
    most_white: float
    longest: int


def dense_fill(
    rng,
    size: int,
    shape: Shape,
    clue_for: Callable[[str, str], str],
    banned: frozenset[str] = frozenset(),
    budget: int = 300,
    restarts: int = 3,
    patterns: int = 2000,
):
    """(grid, fill) for a fresh pattern of ``shape``: each pattern is searched ``restarts``
    times with a small step budget (the search's time has a long tail: a fresh start is
    cheaper than digging on), then another pattern is drawn."""
    for _ in range(patterns):
        grid = pattern(
            rng, size, shape.least_entries, shape.most_white, shape.longest, shape.least_white
        )
        if grid is None or len(slots_of(grid)) > shape.most_entries:
            continue
        for _ in range(restarts):
            try:
                return grid, fill_pattern(rng, grid, clue_for, banned, budget)
            except FillFailed as failure:
                if "no fill" in str(failure):
                    break  # every option failed early: the pattern itself is at fault
    raise FillFailed(f"no {size}x{size} grid filled after {patterns} patterns")
