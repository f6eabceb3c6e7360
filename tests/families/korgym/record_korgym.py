"""Record what KORGym's own code shows and scores, as fixtures for the korgym family's tests.

Not a test: a script run by hand, outside the project, with a Python that has KORGym's
requirements (fastapi, pydantic, httpx, numpy…), on a checkout of KORGym
(github.com/multimodal-art-projection/KORGym):

    python tests/families/korgym/record_korgym.py KORGYM_CHECKOUT GAME [GAME ...]

GAME is a module name in tests/families/korgym/cases/ (the game's kind, e.g.
``datecount``); the module says KORGym's folder (``FOLDER``) and its cases (``CASES``: each
a ``seed`` and either ``actions``, a list of actions, or ``policy``, a function of KORGym's
item and the turn number returning the next action or None to stop). The script serves the
game's FastAPI app in-process (fastapi's TestClient) and drives it exactly as KORGym's
``eval_lib/eval.py`` does: ``/generate`` with the seed, ``/print_board``, then for each
action ``/verify`` (the answer merged into the item) and ``/print_board`` again, until
``is_end`` (a multi-turn game), after one action (a single-turn game), or when the actions
run out. It writes tests/families/korgym/fixtures/GAME.json: per case the seed, the starting
item, the first board, and per action the action, the board after it, the score and
``is_end``. KORGym's code is only run here, never copied into the project.
"""

from __future__ import annotations

import importlib.util
import json
import os
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def load_app(folder: Path):
    os.chdir(folder)  # several games read their word lists by a relative path
    sys.path.insert(0, str(folder))
    spec = importlib.util.spec_from_file_location(f"korgym_{folder.name}", folder / "game_lib.py")
    module = importlib.util.module_from_spec(spec)
    # Registered first, as an import would: pydantic resolves the postponed annotations of
    # a game_lib that uses ``from __future__ import annotations`` (10-minigrid) through it.
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def record(checkout: Path, game: str) -> dict:
    from fastapi.testclient import TestClient

    spec = importlib.util.spec_from_file_location(f"cases_{game}", HERE / "cases" / f"{game}.py")
    cases = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cases)
    here = os.getcwd()
    try:
        module = load_app(checkout / "game_lib" / cases.FOLDER)
        client = TestClient(module.app, raise_server_exceptions=False)  # a crash is a 500
        multi = getattr(cases, "MULTI_TURN", False)
        recorded = []
        for case in cases.CASES:
            random.seed(case.get("global_seed", 0))  # what a fresh server process would hold
            item = client.post("/generate", json={"seed": case["seed"]}).json()
            item["seed"] = case["seed"]
            item["response"] = []
            start = json.loads(json.dumps(item))
            item["prompt"] = client.post("/print_board", json=item).json()["board"]
            first = item["prompt"]  # before any action: a game may print server state
            steps = []
            turn = 0
            actions = list(case.get("actions", ()))
            while True:
                if "policy" in case:
                    action = case["policy"](json.loads(json.dumps(item)), turn)
                else:
                    action = actions[turn] if turn < len(actions) else None
                if action is None:
                    break
                item["action"] = action
                response = client.post("/verify", json=item)
                if response.status_code == 200:
                    item.update(response.json())
                    error = None
                else:  # eval.py: a failed verification scores 0
                    item["score"] = 0
                    error = response.status_code
                board = client.post("/print_board", json=item).json()["board"]
                item["prompt"] = board
                steps.append(
                    {
                        "action": action,
                        "board": board,
                        "score": item.get("score"),
                        "is_end": item.get("is_end"),
                        "error": error,
                    }
                )
                turn += 1
                if not multi or item.get("is_end") or turn >= 100:
                    break
            recorded.append(
                {
                    "seed": case["seed"],
                    "note": case.get("note", ""),
                    "start": start,
                    "board": first,
                    "steps": steps,
                }
            )
    finally:
        os.chdir(here)
    return {"folder": cases.FOLDER, "multi_turn": multi, "cases": recorded}


def main(argv: list[str]) -> None:
    checkout = Path(argv[1]).resolve()
    for game in argv[2:]:
        fixture = record(checkout, game)
        out = HERE / "fixtures" / f"{game}.json"
        out.write_text(json.dumps(fixture, indent=1, ensure_ascii=False) + "\n")
        print(f"{game}: {len(fixture['cases'])} cases -> {out}")


if __name__ == "__main__":
    main(sys.argv)
