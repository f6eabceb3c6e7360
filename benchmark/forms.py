"""The account pages' forms: input is checked here, written by ``benchmark.accounts``."""

from __future__ import annotations

from datetime import timedelta

from django import forms
from django.conf import settings
from django.contrib.auth import forms as auth_forms
from django.contrib.auth.models import User
from django.db.models import Q
from django.utils import timezone

from benchmark.models import Account

# Usernames the site uses for its own accounts or shows for its own entries: a person
# taking one could pass for a guest or for the platform on the board (leaderboard.names).
RESERVED_USERNAME_PREFIXES = ("visitor-",)
RESERVED_USERNAMES = ("platform", "admin", "staff", "kumo")


class SignUpForm(auth_forms.UserCreationForm):
    """Django's user-creation form (its username rules, case-insensitive uniqueness and
    the site's password validators) with a required, unused e-mail address and an
    optional organisation."""

    email = forms.EmailField(
        label="E-mail address",
        max_length=254,
        help_text="We send a link to confirm it; password resets go there too.",
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )
    organisation = forms.CharField(
        max_length=100,
        required=False,
        help_text="Optional: the lab, company or group you answer for. The board shows it "
        "beside your username as the owner of your model names.",
        widget=forms.TextInput(attrs={"autocomplete": "organization"}),
    )

    class Meta(auth_forms.UserCreationForm.Meta):
        fields = ("username", "email")

    def clean_username(self) -> str:
        username = super().clean_username()
        if username and (
            username.lower() in RESERVED_USERNAMES
            or username.lower().startswith(RESERVED_USERNAME_PREFIXES)
        ):
            raise forms.ValidationError("This username is reserved; choose another.")
        return username

    def clean_email(self) -> str:
        email = self.cleaned_data["email"].strip()
        if User.objects.filter(email__iexact=email).exists():
            raise forms.ValidationError(
                "An account already uses this address: log in, or reset its password."
            )
        return email

    def clean_organisation(self) -> str:
        return " ".join(self.cleaned_data["organisation"].split())


class OrganisationForm(forms.Form):
    organisation = forms.CharField(max_length=100, required=False)

    def clean_organisation(self) -> str:
        return " ".join(self.cleaned_data["organisation"].split())


class PasswordResetForm(auth_forms.PasswordResetForm):
    """Django's reset form, which also serves accounts that never had a password (made by
    ``create_api_token``): for them the mail is the way to set a first one. Guest accounts
    and study participants are never served (they have no address, and a participant's
    password comes from the study team)."""

    def get_users(self, email):
        found = User.objects.filter(
            email__iexact=email, is_active=True, visitor__isnull=True, participant__isnull=True
        )
        # As Django's own form does: the database's case-insensitive match may join
        # addresses that differ in Unicode (CVE-2019-19844); send only to the same one.
        same = [user for user in found if auth_forms._unicode_ci_compare(email, user.email)]
        return (user for user in same if _may_mail_reset(user))


def _may_mail_reset(user: User) -> bool:
    """Whether a reset mail may go to the account now: at most one every
    ``PASSWORD_RESET_MINUTES`` (default 5), claimed atomically, so repeated requests for one
    address send one mail. The page says the same either way (it never tells whether an
    account uses the address)."""
    now = timezone.now()
    minutes = max(0, int(getattr(settings, "PASSWORD_RESET_MINUTES", 5)))
    account, _ = Account.objects.get_or_create(user=user)
    claimed = Account.objects.filter(
        Q(reset_mailed_at__isnull=True) | Q(reset_mailed_at__lte=now - timedelta(minutes=minutes)),
        pk=account.pk,
    ).update(reset_mailed_at=now)
    return bool(claimed)
