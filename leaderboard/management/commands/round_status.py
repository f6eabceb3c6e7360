from __future__ import annotations

from django.core.management.base import BaseCommand

from leaderboard import rounds
from leaderboard.models import RotationNotice, Round


class Command(BaseCommand):
    help = "Show the current round, the next rotation date, the next round and recent notices."

    def handle(self, *args, **options) -> None:
        status = rounds.rotation_status()
        current = status.current
        if current is None:
            self.stdout.write("current round: none (the board shows every result)")
        else:
            domains = ", ".join(current.domains.order_by("name").values_list("name", flat=True))
            families = "".join(
                f"; {e['family']}/{e['kind']}/{e['level']}: {e['count']}"
                for e in current.family_specs
            )
            self.stdout.write(
                f"current round: {current.name} ({current.starts_on} to {current.ends_on}; "
                f"domains {domains}; settings {current.settings_label}{families}; "
                f"{current.total_instances} instances)"
            )
        if status.next_rotation is not None:
            days = status.days_left
            when = (
                f"in {days} days"
                if days > 0
                else "due today"
                if days == 0
                else f"overdue by {-days} days"
            )
            self.stdout.write(f"next rotation: {status.next_rotation} ({when})")
        else:
            self.stdout.write("next rotation: none scheduled")
        self.stdout.write(f"next round: {status.describe_upcoming()}")
        closed = Round.objects.filter(status=Round.Status.CLOSED).order_by("-ends_on")[:3]
        for past in closed:
            state = "published" if past.published else "not published"
            self.stdout.write(f"closed: {past.name} ({past.starts_on} to {past.ends_on}, {state})")
        for notice in RotationNotice.objects.select_related("round")[:3]:
            self.stdout.write(f"notice {notice.day} [{notice.kind}]: {notice.message}")
