"""31-ball_arrange (spatial and geometric reasoning): a ball sort puzzle. Tubes of four
hold balls of level + 2 colours (the level drawn from 1 to 4), with two empty tubes; a
move takes a tube's top ball onto an empty tube or onto a ball of its colour. Multi-turn;
1 when every tube is empty or full of one colour, 0 when no move is left.

Generation, as KORGym's: the generator seeded with the seed draws the level, is seeded
with the seed again, and shuffles the balls.

Flaws of KORGym's code, kept here:

* The prompt says the goal is "three tubes each contain exactly four balls of the same
  color", whatever the level: from level 2 on there are four to six colours to sort.
* An action that is not two letters, or names an impossible move, changes nothing but the
  epoch; only spaces are removed from it (not tabs or other marks such as quotes).
* A tube may be moved onto itself: its top ball rises one slot, leaving a gap under it
  (the tube then shows a 0 between balls); raised again from the top slot, the ball falls
  off the tube's end and KORGym's server fails (an error, scored 0, the item unchanged).
* The game ends only when solved or when no move at all is left; moving a ball back and
  forth is always possible, so a lost game runs to KORGym's 100 turns.
"""

from __future__ import annotations

import heapq

from engine.core.families import display as draw
from engine.core.families.korgym.common import KorgymGame

PROMPT = """
You are a good game player, I'll give you a game board and rules.
Your task is:
- First, give your answer according to the game board and rules.
- Second, output the answer in the required format. The last line of your response should be in the following format: 'Answer: $YOUR_ANSWER' (without quotes), where YOUR_ANSWER is your final answer to the question, e.g., 'Answer: DB'
Next, I'll provide a game board where each letter represents a test tube, numbers represent the colors of the balls inside the tubes, and '0' indicates empty space. The leftmost digit represents the bottom of the tube, and the rightmost digit represents the top. Your goal is to move the balls among the tubes so that three tubes each contain exactly four balls of the same color.Additionally, the ball being moved must either match the color of the ball at the top of the target tube or the target tube must be empty. You need to provide two letters to indicate moving the top ball from one tube onto the top of another tube. For example, 'Answer: DC' means moving the top ball from tube D onto the top of tube C.
{board}
"""  # noqa: E501

CAPACITY = 4


def _height(tube) -> int:
    return sum(1 for ball in tube if ball != 0)


def _top(tube) -> int | None:
    """The index of the tube's top ball (KORGym looks from the top down for a ball)."""
    for index in range(CAPACITY - 1, -1, -1):
        if tube[index] != 0:
            return index
    return None


def can_move(state, src: int, dst: int) -> bool:
    if not (0 <= src < len(state) and 0 <= dst < len(state)):
        return False
    top = _top(state[src])
    if top is None or _height(state[dst]) >= CAPACITY:
        return False
    if _height(state[dst]) == 0:
        return True
    under = _top(state[dst])
    return under is not None and state[dst][under] == state[src][top]


def move(state, src: int, dst: int) -> None:
    """Moves src's top ball onto dst (a legal move): onto the slot above dst's top ball,
    or into the bottom slot when dst holds no ball."""
    top = _top(state[src])
    ball = state[src][top]
    under = _top(state[dst]) if _height(state[dst]) else None
    state[src][top] = 0
    state[dst][0 if under is None else under + 1] = ball


def solved(state) -> bool:
    return all(
        all(ball == 0 for ball in tube) or (0 not in tube and len(set(tube)) == 1) for tube in state
    )


def stuck(state) -> bool:
    """No legal move anywhere (KORGym's test: a top ball and a tube it may go onto)."""
    return not any(
        can_move(state, src, dst)
        for src in range(len(state))
        for dst in range(len(state))
        if src != dst
    )


def _misplaced(state) -> int:
    """Balls sitting above a ball of another colour, counted from each tube's bottom run,
    plus one for each colour whose bottom runs lie in more than one tube."""
    count, bottoms = 0, []
    for tube in state:
        balls = [ball for ball in tube if ball]
        run = 0
        while run < len(balls) and balls[run] == balls[0]:
            run += 1
        count += len(balls) - run
        if balls:
            bottoms.append(balls[0])
    return count + len(bottoms) - len(set(bottoms))


def solve(state) -> list[tuple[int, int]] | None:
    """A list of moves to a solved state, or None when there is none: a best-first search
    over states (fewest misplaced balls first, then fewest moves), tubes taken as a set so
    that states differing only in the order of tubes are searched once. Moves that cannot
    help are skipped: out of a finished tube, or the whole of a one-colour tube into an
    empty one. States with no move left (KORGym ends the game there) are not entered."""
    start = [list(tube) for tube in state]
    start_key = tuple(sorted(tuple(tube) for tube in start))
    before: dict[tuple, tuple | None] = {start_key: None}
    frontier = [(_misplaced(start), 0, 0, start_key, start)]
    counter = 1
    while frontier:
        _, depth, _, key, now = heapq.heappop(frontier)
        if solved(now):
            path = []
            while before[key] is not None:
                key, step = before[key]
                path.append(step)
            return path[::-1]
        for src in range(len(now)):
            balls = [ball for ball in now[src] if ball]
            if not balls or (len(balls) == CAPACITY and len(set(balls)) == 1):
                continue
            for dst in range(len(now)):
                if src == dst or not can_move(now, src, dst):
                    continue
                if _height(now[dst]) == 0 and len(set(balls)) == 1:
                    continue
                nxt = [list(tube) for tube in now]
                move(nxt, src, dst)
                if not solved(nxt) and stuck(nxt):
                    continue
                nxt_key = tuple(sorted(tuple(tube) for tube in nxt))
                if nxt_key not in before:
                    before[nxt_key] = (key, (src, dst))
                    heapq.heappush(frontier, (_misplaced(nxt), depth + 1, counter, nxt_key, nxt))
                    counter += 1
    return None


class BallArrange(KorgymGame):
    name = "ball_arrange"
    folder = "31-ball_arrange"
    title = "Bubble Ball Sorting"
    dimension = "SGR"
    multi_turn = True
    answer_format = "two tube letters, from and to, e.g. DC"

    def generate(self, seed, rng):
        level = rng.randint(1, 4)
        rng.seed(seed)
        colours = level + 2
        balls = [colour for colour in range(1, colours + 1) for _ in range(CAPACITY)]
        rng.shuffle(balls)
        state = [balls[i * CAPACITY : (i + 1) * CAPACITY] for i in range(colours)]
        state += [[0] * CAPACITY for _ in range(2)]
        return {
            "epoch": 1,
            "level": level,
            "state": state,
            "is_end": False,
            "prompt": "",
            "action": "",
            "score": 0,
        }

    def board(self, item):
        lines = [
            f"Level: {item['level']}    Epoch: {item['epoch']} ",
            "Note: Each tube is displayed in the format [bottom, ..., top].",
        ]
        lines += [f"{chr(65 + i)}: {tube}" for i, tube in enumerate(item["state"])]
        return PROMPT.format(board="\n".join(lines))

    def verify(self, item, action, rng):
        """KORGym's move; a move that crashes its server (a ball raised past the tube's
        top, see the module docstring) leaves the item as it was, scored 0."""
        before = self.copy(item)
        before["action"] = action
        item = self.copy(before)
        item["epoch"] += 1
        letters = action.replace(" ", "").upper()
        if len(letters) != 2:
            return item
        labels = {chr(65 + i): i for i in range(len(item["state"]))}
        src, dst = (labels.get(letter.upper(), -1) for letter in letters)
        state = item["state"]
        if not can_move(state, src, dst):
            return item
        try:
            move(state, src, dst)
        except IndexError:  # KORGym's server fails (500); its evaluator scores 0
            before["score"] = 0
            return before
        if solved(state):
            item.update(is_end=True, score=1)
        elif stuck(state):
            item.update(is_end=True, score=0)
        return item

    def display(self, item, *, finished=False):
        """Each tube from bottom to top, balls coloured by number (0 is an empty place)."""
        lines = []
        for i, tube in enumerate(item["state"]):
            cells = [
                draw.cell(ball, draw.colour_tone(ball), f"ball {ball}")
                if ball
                else draw.cell("", "empty", "empty")
                for ball in tube
            ]
            lines.append((chr(65 + i), cells))
        return draw.rows(lines, caption=f"Tubes, bottom to top · epoch {item['epoch']}")

    def reference(self, item, rng):
        """A shortest solution (every puzzle KORGym makes with two empty tubes that we
        tried has one); none found, the reference plays nothing."""
        return [chr(65 + src) + chr(65 + dst) for src, dst in solve(item["state"]) or []]


GAME = BallArrange()
