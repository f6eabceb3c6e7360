"""Cases for 10-minigrid: wins (the game's reference, scored here by KORGym's own code) in
Unlock, DoorKey, ObstructedMaze-1Dlhb (a box, a blocking ball, a locked door),
BlockedUnlockPickup, GoToDoor ("done" next to the door) and a dynamic-obstacle world; the
blue door opened before the red one (a loss); steps into lava with an unknown action and
mixed case on the way; a 19×19 board (numpy elides its middle) with "done", an unknown
action and spaces; Playground (no goal) with pickup, drop and toggle; and, among moving
balls, a pickup (played as turn_left) then a step into the wall (-1, scored 0)."""

FOLDER = "10-minigrid"
MULTI_TURN = True

R, L, F, P, D, T = "turn_right", "turn_left", "move_forward", "pickup", "drop", "toggle"
CASES = [
    {"seed": 0, "actions": [R, F, F, F, R, F, P, R, F, F, F, L, F, F, T], "note": "Unlock, won"},
    {"seed": 3, "actions": [R, P, L, L, F, R, T, F, F, R, F, F], "note": "DoorKey-5x5, won"},
    {
        "seed": 19,
        "actions": [L, L, P, R, D, R, F, L, F, T, P, L, L, F, R, F, F, L, T, R, D, L, F, P],
        "note": "ObstructedMaze-1Dlhb, won",
    },
    {
        "seed": 14,
        "actions": [R, F, F, F, R, P, R, D, L, F, R, P, L, T, R, D, L, F, F, R, F, P],
        "note": "BlockedUnlockPickup, won",
    },
    {"seed": 12, "actions": [L, L, F, R, F, "done"], "note": "GoToDoor, done next to it: won"},
    {"seed": 7, "actions": [R, F], "note": "Dynamic-Obstacles-Random, won"},
    {"seed": 6, "actions": [L, F, L, F, F, T], "note": "RedBlueDoors, blue first: lost"},
    {
        "seed": 1,
        "actions": [F, "jump", "Turn_Right", F, F, F, F, F, F],
        "note": "LavaCrossing: an unknown action (forward), mixed case, into the lava",
    },
    {
        "seed": 9,
        "actions": ["done", L, " Move_Forward ", "fly", F, R],
        "note": "FourRooms, 19×19 (elided): done, spaces, an unknown action",
    },
    {"seed": 20, "actions": [P, R, D, T, F, P, D], "note": "Playground: no goal"},
    {"seed": 60, "actions": [P, R, R, F, F, F, F], "note": "Dynamic-Obstacles: pickup turns"},
]
