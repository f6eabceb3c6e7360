"""29-Construction_Company (mathematical and logical reasoning): companies with the
projects they can build and how long each takes, and a city plan of (company, project)
pairs; the player gives the total time when the plan runs in order with at most 2–4
projects at once. Single turn, 1 for KORGym's number (read by ``int``), else 0.

KORGym's instance: 5–50 companies, each able to build 5–20 projects drawn from a pool of
twice as many random six-letter names (1–10 years each), and a plan of 20–100 steps, each
a random project (not repeated when there are more projects than steps) given to a random
company able to build it. KORGym's answer starts each step as soon as a slot frees (the
earliest finishing running project), in plan order, and takes the last finish.

Flaw of KORGym's prompt: it asks for "the minimum possible total time", but the answer is
that in-order schedule's length, which the rules' "in strict order" and "start
immediately" fix; no minimisation is involved.
"""

from __future__ import annotations

import heapq
import string

from engine.core.families.korgym.common import CountQuestion

PROMPT = (
    "\nYou are a good game player, I'll give you a game board and rules.\nYour task is:\n"
    "- First, give your answer according to the game board and rules.\n"
    "- Second, output the answer in the required format. The last line of your response "
    "should be in the following format: 'Answer: $YOUR_ANSWER' (without quotes), where "
    "YOUR_ANSWER is your final answer to the question, e.g., 'Answer: 12'\n{board}\n"
)
QUESTION = """[Construction Company Scheduling Game Rules]
1. Game Objective:
Calculate the total time required to complete all projects in the city's plan, considering:
- Projects must be executed in the order listed.
- A maximum of {allowed} projects can run simultaneously.

2. Company Capabilities:
{companies}

3. City Project Plan (in strict order; data format is (Company ID, Project Name)):
{plan}

4. Rules:
- Projects start immediately when a slot is available.
- Time is measured in years.
- If all concurrent slots are occupied, new projects must wait.
- The total duration is from the start of the first project to the completion of the last project.
- Each company can only undertake projects they are capable of.
- When projects are repeated, they must be completed each time.

Please calculate the minimum possible total time to complete all projects.
"""  # noqa: E501


def _total_time(plan, companies, allowed: int) -> int:
    running: list[int] = []  # finishing times of the projects in the slots
    last = 0
    for company, project in plan:
        start = heapq.heappop(running) if len(running) >= allowed else 0
        end = start + companies[company - 1][project]
        heapq.heappush(running, end)
        last = max(last, end)
    return last


class ConstructionCompany(CountQuestion):
    prompt = PROMPT
    name = "construction_company"
    folder = "29-Construction_Company"
    title = "Construction Company"
    dimension = "MLR"
    answer_format = "the total time in years, a whole number"

    def generate(self, seed, rng):
        company_count = rng.randint(5, 50)
        per_company = rng.randint(5, 20)
        steps = rng.randint(20, 100)
        allowed = rng.randint(2, 4)
        pool: dict[str, None] = {}
        while len(pool) < company_count * per_company * 2:
            pool.setdefault("".join(rng.choices(string.ascii_lowercase, k=6)))
        names = list(pool)
        companies = []
        builders: dict[str, list[int]] = {}
        for number in range(1, company_count + 1):
            chosen = rng.sample(names, per_company)
            companies.append({project: rng.randint(1, 10) for project in chosen})
            for project in chosen:
                builders.setdefault(project, []).append(number)
        open_projects = list(builders)
        repeat = len(open_projects) <= steps
        plan = []
        for _ in range(steps):
            project = rng.choice(open_projects)
            plan.append((rng.choice(builders[project]), project))
            if not repeat:
                open_projects.remove(project)
        capabilities = "\n".join(
            f"Company {number} can handle:"
            + "".join(
                f"\n  {project}: {years} year{'s' if years != 1 else ''}"
                for project, years in company.items()
            )
            for number, company in enumerate(companies, 1)
        )
        question = QUESTION.format(
            allowed=allowed,
            companies=capabilities,
            plan=" -> ".join(f"({c}, {p})" for c, p in plan),
        )
        return self.question(question, _total_time(plan, companies, allowed))


GAME = ConstructionCompany()
