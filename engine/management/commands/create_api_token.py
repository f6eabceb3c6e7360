from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.core.validators import validate_email
from rest_framework.authtoken.models import Token

from benchmark import accounts


class Command(BaseCommand):
    help = (
        "Print the API token of USERNAME, creating the account (without a password) if "
        "needed. An account without a password also gets a one-time link to set one "
        "(on stderr; the token alone goes to stdout)."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("username")
        parser.add_argument(
            "--email",
            default="",
            help="the account's e-mail address (set or changed): the password-reset page "
            "mails its links there",
        )
        parser.add_argument(
            "--organisation", default=None, help="the organisation shown beside its username"
        )
        parser.add_argument(
            "--base-url",
            default="",
            help="the site's address for the set-password link (default: SITE_URL)",
        )

    def handle(
        self,
        *args,
        username: str,
        email: str,
        organisation: str | None,
        base_url: str,
        **options,
    ) -> None:
        if email:
            try:
                validate_email(email)
            except ValidationError:
                raise CommandError(f"{email!r} is not an e-mail address") from None
        user_model = get_user_model()
        user, created = user_model.objects.get_or_create(username=username)
        if created:
            user.set_unusable_password()
            user.save(update_fields=["password"])
            self.stderr.write(f"created account {username!r} (API access only, no password)")
        if email and user.email != email:
            user.email = email
            user.save(update_fields=["email"])
        if organisation is not None:
            accounts.do_set_organisation(user, " ".join(organisation.split()))
        token, _ = Token.objects.get_or_create(user=user)
        self.stdout.write(token.key)
        if not user.has_usable_password():
            link = accounts.set_password_link(user, base_url or settings.SITE_URL)
            hours = settings.PASSWORD_RESET_TIMEOUT // 3600
            self.stderr.write(
                f"to set its password (for /account/), open this link within {hours} hours; "
                f"it works once:\n{link}"
            )
