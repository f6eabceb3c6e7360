from django.apps import AppConfig


class LeaderboardConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "leaderboard"
    verbose_name = "Leaderboard"

    def ready(self) -> None:
        from engine.sessions import session_finished
        from leaderboard.ranked import record_ranked_game

        # A ranked game's trajectory is stored in the transaction that ends its session.
        session_finished.connect(record_ranked_game, dispatch_uid="leaderboard.ranked")
