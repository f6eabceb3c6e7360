"""``manage.py check --deploy``: what the site needs to reach people by mail."""

from __future__ import annotations

from django.conf import settings
from django.core.checks import Tags, Warning, register

CONSOLE = "django.core.mail.backends.console.EmailBackend"


@register(Tags.security, deploy=True)
def mail_is_sent(app_configs, **kwargs) -> list[Warning]:
    """Sign-up confirmations and password resets are mailed: with no ``EMAIL_HOST`` they
    are printed to the web process's log instead, and nobody receives them."""
    if settings.EMAIL_BACKEND != CONSOLE:
        return []
    return [
        Warning(
            "mail is printed to the console, not sent: sign-up confirmations and password "
            "resets reach nobody",
            hint="set EMAIL_HOST (and EMAIL_PORT, EMAIL_HOST_USER, EMAIL_HOST_PASSWORD, "
            "EMAIL_USE_TLS, DEFAULT_FROM_EMAIL as needed); see the README's Production section",
            id="kumo.W001",
        )
    ]
