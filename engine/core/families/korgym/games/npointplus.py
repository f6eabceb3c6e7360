"""27-NpointPlus (strategic reasoning): KORGym's "N-point", ten rounds of a blackjack-like
game to a threshold N (24-50, new each round) against a hidden fixed strategy.

As KORGym plays it: cards come from an infinite deck (A=1, 2-10, J=11, Q=12, K=13); each
turn the player says hit or stand (any case, spaces around allowed), then the opponent
("stubborn" always hits, "careful" always stands, "normal" hits below N-6, "repeat" hits
first and then copies the player's last hit or stand) acts unless it has stood or gone
over N. A round is settled when both have stopped (over N on both sides is a draw,
otherwise over N loses, then the higher total wins); a win scores 1, a draw 0.5. Any other
action changes nothing. While the player has stood and the opponent still plays, the
player's actions are recorded but ignored.

KORGym's flaws, kept here: its rules speak of a dealer with one face-down card, but both
hands start with two cards and the opponent's second and later cards are hidden; its API
turns the score into a float, so the board shows "Score: 0.0".

The score is a count of up to 10, so ``success`` needs a threshold: a game counts as won
when it ends with at least ``GOAL`` (6) points, more than half of what its ten rounds can
give. The reference knows the game's generator (it is the server's), so it tries, each
round, every number of hits before standing on the cards really to come and keeps the
best outcome; it reaches 6 points in 196 of the games of seeds 0-199 (10 points in 116).
"""

from __future__ import annotations

import random

from engine.core.families import display as shown_as
from engine.core.families.korgym.common import KorgymGame

PROMPT = (
    "\n"
    "You are a good game problem-solver, I'll give you a game board and rules.\n"
    "Your task is:\n"
    "- First, give your answer according to the game board and rules.\n"
    "- Second, output the answer in the required format. The last line of your response "
    "should be in the following format: 'Answer: $YOUR_ANSWER' (without quotes), where "
    "YOUR_ANSWER is your final answer to the question,e.g. 'Answer: Hit'\n"
    "At the start of the game, the dealer has one face-up card and one face-down card, "
    "while the player has two face-up cards. All cards are drawn from an infinite deck.\n"
    "\n"
    "Card values are as follows:\n"
    "- Aces are worth 1 point.\n"
    "- Number cards (2-10) are worth their numerical value.\n"
    "- Face cards (J, Q, K) are worth 11, 12, and 13 points, respectively.\n"
    "\n"
    "In each round, the player can request an additional card (Hit) until they decide to "
    "stop (Stand) or exceed N. When both sides have stopped, the settlement occurs.\n"
    "If one side exceeds N and the other side does not, the side that did not exceed N "
    "wins, and the other side loses.\n"
    "If both sides exceed N, it is a draw.\n"
    "If neither side exceeds N, the side closest to N wins, and the other side loses.\n"
    "If both sides have the same total, it is a draw.\n"
    "Winning earns 1 score, a draw earns 0.5 score, and losing earns 0 score.\n"
    "\n"
    "You will play 10 rounds against an opponent with a fixed strategy. You have access "
    "to the complete records of all previous rounds while your opponent only has access "
    "to the records of the current round. Your opponent's strategy remains unchanged "
    "throughout the game.\n"
    "\n"
    "Now the current game situation is as follows:\n"
    "\n"
    "{board}\n"
)

STRATEGIES = ["stubborn", "careful", "normal", "repeat"]
CARDS = {"A": 1, "J": 11, "Q": 12, "K": 13, **{str(value): value for value in range(2, 11)}}
CARD_NAMES = list(CARDS)
ROUNDS = 10
GOAL = 6


def draw(rng: random.Random) -> str:
    return rng.choice(CARD_NAMES)


def total(cards: list[str]) -> int:
    return sum(CARDS[card] for card in cards)


def deal(item: dict, rng: random.Random) -> None:
    """A new round's threshold and hands, drawn in KORGym's order."""
    item["n"] = rng.randint(24, 50)
    item["player_cards"] = [draw(rng), draw(rng)]
    item["opponent_cards"] = [draw(rng), draw(rng)]


class NPoint(KorgymGame):
    name = "npointplus"
    folder = "27-NpointPlus"
    title = "N-point"
    dimension = "SR"
    multi_turn = True
    log_scaled = True
    answer_format = "hit or stand"

    keys = {"h": "hit", "s": "stand"}

    def generate(self, seed, rng):
        item = {"seed": seed, "opponent_strategy": rng.choice(STRATEGIES)}
        deal(item, rng)
        item.update(
            {
                "player_stand": False,
                "opponent_stand": False,
                "player_bust": False,
                "opponent_bust": False,
                "turn": 1,
                "moves": [],
                "last_player_action": None,
                "opponent_first_move": True,
                "current_round": 1,
                "total_rounds": ROUNDS,
                "score": 0.0,
                "is_end": False,
                "round_result": None,
                "history": [],
                "action": "",
                "prompt": "",
            }
        )
        return item

    def board(self, item):
        lines = ["=== History ==="]
        for record in item["history"]:
            result = record["round_result"]
            lines += [
                f"Round {record['round']}:",
                f"  Threshold (N): {record['n']}",
                f"  Moves: {' | '.join(record['moves'])}",
                f"  Your cards: {record['player_cards']} (Total: {record['player_total']})",
                f"  Opponent's cards: {record['opponent_cards']} "
                f"(Total: {record['opponent_total']})",
                f"  Outcome: {result['outcome']}, Round Score: {result['round_score']}",
                "--------------------",
            ]
        if not item["history"]:
            lines.append("No previous rounds.")
        cards = item["player_cards"]
        lines += [
            "=== Current Round ===",
            f"Round: {item['current_round']} / {item['total_rounds']}",
            f"Score: {item['score']}",
            f"Threshold (N): {item['n']}",
            f"Your cards: {cards} (Total: {total(cards)}).",
        ]
        theirs = item["opponent_cards"]
        if item["is_end"]:  # KORGym shows the last round's cards once the game is over
            lines.append(f"Opponent's cards: {theirs} (Total: {total(theirs)}).")
        else:
            shown = theirs[:1] + ["unknown card"] * (len(theirs) - 1)
            lines.append(f"Opponent's cards: {shown}.")
        lines += [f"Turn: {item['turn']}", "Move history:"]
        lines += [f"  {move}" for move in item["moves"]] or ["  No moves yet."]
        return PROMPT.format(board="\n".join(lines) + "\n")

    def verify(self, item, action, rng):
        item = self.copy(item)
        item["action"] = action
        if item.get("is_end"):
            return item
        move = action.strip().lower()
        if move not in ("hit", "stand"):
            return item
        if not item["player_stand"] and not item["player_bust"]:
            if move == "hit":
                item["player_cards"].append(draw(rng))
                if total(item["player_cards"]) > item["n"]:
                    item["player_bust"] = item["player_stand"] = True
            else:
                item["player_stand"] = True
            item["last_player_action"] = move
        if not item["opponent_stand"] and not item["opponent_bust"]:
            theirs = self._opponent(item)
            if theirs == "hit":
                item["opponent_cards"].append(draw(rng))
                if total(item["opponent_cards"]) > item["n"]:
                    item["opponent_bust"] = item["opponent_stand"] = True
            else:
                item["opponent_stand"] = True
        else:
            theirs = "stand"
        item["moves"].append(f"Turn {item['turn']}: You: {move}; Opponent: {theirs}")
        item["turn"] += 1
        if item["player_stand"] and item["opponent_stand"]:
            self._settle(item, rng)
        item["action"] = ""
        return item

    @staticmethod
    def _opponent(item):
        strategy = item["opponent_strategy"]
        if strategy == "stubborn":
            return "hit"
        if strategy == "normal":
            return "hit" if total(item["opponent_cards"]) < item["n"] - 6 else "stand"
        if strategy == "repeat":
            if item["opponent_first_move"]:
                item["opponent_first_move"] = False
                return "hit"
            last = item["last_player_action"]
            return last if last in ("hit", "stand") else "stand"
        return "stand"  # "careful", and any other

    @staticmethod
    def _settle(item, rng):
        mine, theirs, n = total(item["player_cards"]), total(item["opponent_cards"]), item["n"]
        if mine > n and theirs <= n:
            outcome, points = "You lose!", 0
        elif theirs > n and mine <= n:
            outcome, points = "You win!", 1
        elif mine > n and theirs > n:
            outcome, points = "Draw game!", 0.5
        elif mine > theirs:
            outcome, points = "You win!", 1
        elif mine == theirs:
            outcome, points = "Draw game!", 0.5
        else:
            outcome, points = "You lose!", 0
        item["round_result"] = {
            "outcome": outcome,
            "round_score": points,
            "player_total": mine,
            "opponent_total": theirs,
        }
        item["score"] += points
        item["history"].append(
            {
                "round": item["current_round"],
                "n": n,
                "moves": list(item["moves"]),
                "player_cards": item["player_cards"],
                "player_total": mine,
                "opponent_cards": item["opponent_cards"],
                "opponent_total": theirs,
                "round_result": item["round_result"],
            }
        )
        if item["current_round"] >= item["total_rounds"]:
            item["is_end"] = True
            return
        item["current_round"] += 1
        deal(item, rng)
        item.update(
            {
                "player_stand": False,
                "opponent_stand": False,
                "player_bust": False,
                "opponent_bust": False,
                "turn": 1,
                "moves": [],
                "last_player_action": None,
                "opponent_first_move": True,
                "round_result": None,
            }
        )

    def success(self, item):
        return bool(item.get("is_end")) and float(item.get("score") or 0) >= GOAL

    def display(self, item, *, finished=False):
        """The hands (the opponent's cards after its first face down until the game is
        over, as the board shows them) and the rounds played."""
        shown = bool(item["is_end"]) or finished
        mine, theirs = item["player_cards"], item["opponent_cards"]
        hands = shown_as.cards(
            [
                (f"You ({total(mine)})", [shown_as.card(card) for card in mine]),
                (
                    f"Opponent ({total(theirs)})" if shown else "Opponent",
                    [
                        shown_as.card(card, face_down=k > 0 and not shown)
                        for k, card in enumerate(theirs)
                    ],
                ),
            ],
            caption=(
                f"Round {item['current_round']} / {item['total_rounds']} · N = {item['n']}"
                f" · score {item['score']}"
            ),
        )
        if not item["history"]:
            return hands
        outcome = {1: "right", 0: "wrong"}
        rounds = [
            (
                f"Round {record['round']} (N = {record['n']})",
                [
                    shown_as.cell(f"you {record['player_total']}"),
                    shown_as.cell(f"opponent {record['opponent_total']}"),
                    shown_as.cell(
                        record["round_result"]["outcome"],
                        outcome.get(record["round_result"]["round_score"], ""),
                    ),
                ],
            )
            for record in item["history"]
        ]
        return shown_as.stack(hands, shown_as.rows(rounds, caption="Rounds played"))

    def reference(self, item, rng):
        """Each round, the number of hits before standing whose outcome, on the cards the
        generator will really deal, scores most (fewest hits on a tie), then stands until
        the round is settled."""
        actions = []
        while not item["is_end"]:
            best = None
            for hits in range(0, 30):
                plan, after, state = self._play_round(item, rng, hits)
                if best is None or after["score"] > best[1]["score"]:
                    best = (plan, after, state)
                last = after["history"][-1]
                if last["player_total"] > last["n"]:  # over N: more hits cannot help
                    break
            plan, item, state = best
            rng = random.Random()
            rng.setstate(state)
            actions += plan
        return actions

    def _play_round(self, item, rng, hits):
        """The actions, the item and the generator's state after ``hits`` hits (fewer if
        the player goes over N first) and then stands until the round is settled."""
        trial = random.Random()
        trial.setstate(rng.getstate())
        plan = []
        start = item["current_round"]
        while not item["is_end"] and item["current_round"] == start:
            move = "hit" if plan.count("hit") < hits else "stand"
            item = self.verify(item, move, trial)
            plan.append(move)
        return plan, item, trial.getstate()


GAME = NPoint()
