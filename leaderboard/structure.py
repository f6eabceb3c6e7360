"""Task structure against correctness, per model and setting, from scored trajectories.

Read by the domain page (``engine.views.domain_detail``). Only active trajectories count
(the newest scored file of each model, domain and setting). A task is correct for a model
when it wins a strict majority of that model's runs on it; the χ² test and Cramér's V
compare the tasks' structure signatures with that verdict (``engine.core.families.kumo.analysis``).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.db.models import Count, Q

from engine.core.families.kumo.analysis import (
    IndependenceTest,
    Signature,
    independence_test,
    majority_correct,
    task_signature,
)
from engine.models import Domain, Instance
from leaderboard.models import Trajectory

NAMED_SETTINGS = {(4, 6): "Easy", (12, 16): "Hard"}


@dataclass(frozen=True)
class ModelStructure:
    model_id: int
    model: str
    tasks: int
    correct_tasks: int
    runs: int
    signatures: int
    test: IndependenceTest


@dataclass(frozen=True)
class SettingStructure:
    n_truths: int
    n_actions: int
    models: tuple[ModelStructure, ...]

    @property
    def label(self) -> str:
        size = f"{self.n_truths} truths / {self.n_actions} actions"
        name = NAMED_SETTINGS.get((self.n_truths, self.n_actions))
        return f"{name} ({size})" if name else size


def structure_by_setting(domain: Domain) -> list[SettingStructure]:
    """One χ² test per (setting, model) with trajectories on ``domain``.

    Two queries whatever the number of trajectories: runs and wins per (model, setting,
    instance), aggregated by the database, then the truths and actions of those instances.
    """
    active = Trajectory.objects.filter(domain=domain, active=True)
    groups = list(
        active.values("model_id", "model__name", "n_truths", "n_actions", "instance_id")
        .annotate(runs=Count("id"), wins=Count("id", filter=Q(correct=True)))
        .order_by()
    )
    if not groups:
        return []
    tasks = Instance.objects.filter(pk__in=active.values("instance_id")).values_list(
        "pk", "truths", "actions"
    )
    core = domain.to_core()
    signatures: dict[int, Signature] = {
        pk: task_signature(core, truths, actions) for pk, truths, actions in tasks
    }

    # (n_truths, n_actions) -> (model name, model id) -> (signature, correct, runs) per task
    per_model: dict[tuple[int, int], dict[tuple[str, int], list[tuple[Signature, bool, int]]]]
    per_model = defaultdict(lambda: defaultdict(list))
    for group in groups:
        verdict = majority_correct(group["wins"], group["runs"])
        per_model[(group["n_truths"], group["n_actions"])][
            (group["model__name"], group["model_id"])
        ].append((signatures[group["instance_id"]], verdict, group["runs"]))

    settings = []
    for (n_truths, n_actions), models in sorted(per_model.items()):
        rows = []
        for (model, model_id), outcomes in sorted(models.items()):
            rows.append(
                ModelStructure(
                    model_id=model_id,
                    model=model,
                    tasks=len(outcomes),
                    correct_tasks=sum(1 for _, verdict, _ in outcomes if verdict),
                    runs=sum(runs for _, _, runs in outcomes),
                    signatures=len({signature for signature, _, _ in outcomes}),
                    test=independence_test(
                        (signature, "correct" if verdict else "incorrect")
                        for signature, verdict, _ in outcomes
                    ),
                )
            )
        settings.append(SettingStructure(n_truths, n_actions, tuple(rows)))
    return settings
