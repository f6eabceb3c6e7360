from django.apps import AppConfig


class BenchmarkConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "benchmark"
    verbose_name = "Benchmark: runs and accounts"

    def ready(self) -> None:
        from benchmark import (
            checks,  # noqa: F401  (registers the deploy checks)
            health,  # noqa: F401  (notes when this process started)
        )
