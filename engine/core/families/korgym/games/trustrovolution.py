"""26-TrustRovolution (strategic reasoning): KORGym's "Trust Evolution", an iterated
prisoner's dilemma of 5 major rounds of 8 minor rounds against a hidden fixed strategy.

As KORGym plays it: the opponent (one of eight strategies, drawn at generation) sees only
the current major round's record; both collaborating scores +2, collaborating against a
cheat -1, cheating against a collaborator +3, both cheating 0. An action other than
"cheat" or "collaborate" (any case, spaces around allowed) changes nothing: the board and
score stay as they were and the turn is spent. An action that starts with "answer:" in
any case is read after its first "Answer:" (capital A); when it has none (e.g. "answer:
cheat") KORGym's code fails, and KORGym's evaluator then sets the score to 0 and plays on
from there (kept here: that action zeroes the score, nothing else changes).

The score is a count (it may be negative), so ``success`` needs a threshold: a game counts
as won when it is over with the most points that could be had against that opponent (its
major rounds are independent, so the best of one round's 256 plays, five times; against
the "random" opponent, whose draws do not depend on the player, cheating every time, i.e.
3 for each of its recorded collaborations). The reference plays that best.
"""

from __future__ import annotations

from itertools import product

from engine.core.families import display as draw
from engine.core.families.korgym.common import KorgymGame

PROMPT = (
    "\n"
    "You are a good game player, I'll give you a game board and rules.\n"
    "Your task is:\n"
    "- First, give your answer according to the game board and rules.\n"
    "- Second, output the answer in the required format. The last line of your response "
    "should be in the following format: 'Answer: $YOUR_ANSWER' (without quotes), where "
    "YOUR_ANSWER is your final answer to the question,e.g.'Answer: cheat'\n"
    "\n"
    "When you put in one coin, your opponent will receive three coins, and vice versa. "
    'Both of you can choose to "collaborate" (put in one coin) or "cheat" (put in no '
    "coins). If you collaborate but your opponent cheats, you will lose one coin, and "
    "your opponent gains three (-1 : +3). However, if both choose to cheat, neither "
    "gains nor loses anything (0 : 0).\n"
    "\n"
    "You will play 5 major rounds against an opponent with a fixed strategy, each major "
    "round consisting of 8 minor rounds. You have access to the complete records of all "
    "previous major rounds and the current major round, while your opponent only has "
    "access to the records of the current major round. Your opponent's strategy remains "
    "unchanged throughout the game.\n"
    "{board}\n"
)

STRATEGIES = [
    "copycat",
    "little pink",
    "cheater",
    "grudger",
    "detective",
    "copykitten",
    "stubborn",
    "random",
]
ACTIONS = ("cheat", "collaborate")
MAJOR_ROUNDS = 5
MINOR_ROUNDS = 8
# Points for (player, opponent).
PAYOFF = {
    ("collaborate", "collaborate"): 2,
    ("collaborate", "cheat"): -1,
    ("cheat", "collaborate"): 3,
    ("cheat", "cheat"): 0,
}


def opponent_move(strategy, minor_round, record, rng):
    """The opponent's move; ``record`` is this major round's [player, opponent] pairs."""
    mine = [pair[0] for pair in record]  # what the player did, as the opponent sees it
    if strategy == "copycat":
        return mine[-1] if mine else "collaborate"
    if strategy == "little pink":
        return "collaborate"
    if strategy == "cheater":
        return "cheat"
    if strategy == "grudger":
        return "cheat" if "cheat" in mine else "collaborate"
    if strategy == "detective":
        if minor_round in (1, 3, 4):
            return "collaborate"
        if minor_round == 2:
            return "cheat"
        return mine[-1] if "cheat" in mine else "cheat"
    if strategy == "copykitten":
        if len(mine) >= 2 and mine[-1] == mine[-2] == "cheat":
            return "cheat"
        return mine[-1] if mine else "collaborate"
    if strategy == "stubborn":
        if not record:
            return "collaborate"
        player, opponent = record[-1]
        if player == opponent:
            return opponent
        return "cheat" if opponent == "collaborate" else "collaborate"
    if strategy == "random":
        return rng.choice(["cheat", "collaborate"])
    raise ValueError(f"unknown strategy {strategy!r}")


def best_major_round(strategy):
    """The best points in one major round against a fixed strategy, and the moves."""
    best = None
    for moves in product(ACTIONS, repeat=MINOR_ROUNDS):
        record, points = [], 0
        for minor, move in enumerate(moves, start=1):
            answer = opponent_move(strategy, minor, record, None)
            points += PAYOFF[(move, answer)]
            record.append([move, answer])
        if best is None or points > best[0]:
            best = (points, list(moves))
    return best


class TrustEvolution(KorgymGame):
    name = "trustrovolution"
    folder = "26-TrustRovolution"
    title = "Trust Evolution"
    dimension = "SR"
    multi_turn = True
    log_scaled = True
    answer_format = "cheat or collaborate"

    keys = {"c": "cheat", "o": "collaborate"}

    def generate(self, seed, rng):
        return {
            "seed": seed,
            "opponent_type": rng.choice(STRATEGIES),
            "score": 0,
            "major_round": 1,
            "minor_round": 1,
            "history": [],
            "current_history": [],
            "is_end": False,
            "prompt": "",
            "action": "",
        }

    def board(self, item):
        lines = [
            f"Major Round: {item['major_round']} / 5",
            f"Minor Round: {item['minor_round']} / 8",
            f"Score: {item['score']}",
            "Completed Major Rounds History:",
        ]
        for number, major in enumerate(item["history"], start=1):
            lines.append(f"  Major Round {number}:")
            for minor, (player, opponent) in enumerate(major, start=1):
                lines.append(f"    Minor {minor}: You: {player}, Opponent: {opponent}")
        if not item["history"]:
            lines.append("  None")
        lines += ["", "Current Major Round History:"]
        for minor, (player, opponent) in enumerate(item["current_history"], start=1):
            lines.append(f"  Minor {minor}: You: {player}, Opponent: {opponent}")
        if not item["current_history"]:
            lines.append("  No rounds played yet in this major round.")
        lines += [
            "",
            "Please input your action for the next minor round in the format:",
            "Answer: cheat   (or)   Answer: collaborate",
            "",
        ]
        return PROMPT.format(board="\n".join(lines))

    def verify(self, item, action, rng):
        item = self.copy(item)
        item["action"] = action
        if item.get("is_end"):
            return item
        line = action.strip()
        if line.lower().startswith("answer:"):
            if "Answer:" not in line:  # KORGym's code fails here; its evaluator scores 0
                item["score"] = 0
                return item
            move = line.split("Answer:", 1)[1].strip().lower()
        else:
            move = line.lower()
        if move not in ACTIONS:
            return item
        answer = opponent_move(
            item["opponent_type"], item["minor_round"], item["current_history"], rng
        )
        item["score"] += PAYOFF[(move, answer)]
        item["current_history"].append([move, answer])
        if item["minor_round"] < MINOR_ROUNDS:
            item["minor_round"] += 1
        else:
            item["history"].append(item["current_history"])
            item["current_history"] = []
            if item["major_round"] < MAJOR_ROUNDS:
                item["major_round"] += 1
                item["minor_round"] = 1
            else:
                item["is_end"] = True
        item["action"] = ""
        item["prompt"] = self.board(item)
        return item

    def best_score(self, item):
        """The most points that could be had against this opponent (for "random", given
        the moves it drew, which the player cannot change)."""
        if item["opponent_type"] == "random":
            played = [pair for major in item["history"] for pair in major]
            return sum(3 for _, answer in played + item["current_history"] if answer != "cheat")
        return MAJOR_ROUNDS * best_major_round(item["opponent_type"])[0]

    def success(self, item):
        return bool(item.get("is_end")) and item["score"] >= self.best_score(item)

    def display(self, item, *, finished=False):
        """Each major round's minor rounds: your move and the opponent's."""
        tones = {"cheat": "wrong", "collaborate": "right"}
        lines = []
        rounds = [*item["history"], item["current_history"]]
        for number, major in enumerate(rounds, start=1):
            if not major:
                continue
            for side, who in ((0, "you"), (1, "opponent")):
                moves = [draw.cell(pair[side], tones.get(pair[side], "")) for pair in major]
                lines.append((f"Round {number}, {who}", moves))
        caption = (
            f"Major round {item['major_round']} / 5 · minor round {item['minor_round']} / 8"
            f" · score {item['score']}"
        )
        return draw.rows(lines, caption=caption)

    def reference(self, item, rng):
        if item["opponent_type"] == "random":
            return ["cheat"] * (MAJOR_ROUNDS * MINOR_ROUNDS)
        return best_major_round(item["opponent_type"])[1] * MAJOR_ROUNDS


GAME = TrustEvolution()
