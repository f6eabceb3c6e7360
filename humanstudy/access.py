"""What a study participant may play: the tasks of their own task set and the practice task,
nothing else."""

from __future__ import annotations

from django.db import connection

from benchmark.compiled_sql import Prepared
from humanstudy.models import Participant, TaskSetItem

# A user's task set, if the user is a study participant: asked on every play page's
# socket, so compiled once per process.
_TASK_SET = Prepared(
    lambda user: Participant.objects.filter(user_id=user).order_by().values_list("task_set_id")
)


def may_play(user, instance_id: int) -> bool:
    """Whether ``user`` may open a game on this instance in the browser.

    Anyone who is not a study participant may (the session itself says whose game it is);
    a participant only on an instance of their own task set, or the practice task.
    """
    participant = _TASK_SET.rows(connection, user.pk)
    if not participant:
        return True
    if TaskSetItem.objects.filter(task_set_id=participant[0][0], instance_id=instance_id).exists():
        return True
    from humanstudy.path import practice_instance

    practice = practice_instance()
    return practice is not None and practice.pk == instance_id
