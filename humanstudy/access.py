"""What a study participant may play: the tasks of their own task set and the practice task,
nothing else."""

from __future__ import annotations

from humanstudy.models import Participant, TaskSetItem


def may_play(user, instance_id: int) -> bool:
    """Whether ``user`` may open a game on this instance in the browser.

    Anyone who is not a study participant may (the session itself says whose game it is);
    a participant only on an instance of their own task set, or the practice task.
    """
    participant = Participant.objects.filter(user_id=user.pk).only("task_set_id").first()
    if participant is None:
        return True
    if TaskSetItem.objects.filter(
        task_set_id=participant.task_set_id, instance_id=instance_id
    ).exists():
        return True
    from humanstudy.path import practice_instance

    practice = practice_instance()
    return practice is not None and practice.pk == instance_id
