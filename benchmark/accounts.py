"""Accounts for every kind of user: sign-up, e-mail confirmation, links to set a password.

Three kinds of people hold an account here besides the study's participants:

* **Visitors** play as a guest account made on their first game or family task
  (``engine.practice``); it has no password and lasts their browser session.
* **People who sign up** choose a username, an e-mail address and a password
  (``do_sign_up``). A visitor who signs up keeps their play: the guest account itself
  becomes the real one. The account can log in and play at once; what speaks for it in
  public waits for its address to be confirmed (``is_confirmed``): an API token (the
  account page) and model names (``leaderboard.names``), since those put a name on the
  board that others read. The confirmation link is mailed (``send_confirmation``) and
  carries a token of Django's token machinery that stops working once used.
* **Operator-made accounts** (``create_api_token``, the admin) are vouched for by the
  operator and need no confirmation. They start without a password; the command prints a
  one-time link to set one (``set_password_link``), and the password-reset page serves
  them too (``forms.PasswordResetForm``).

Sign-ups are limited per client address (``SIGNUPS_PER_HOUR_PER_IP``), counted on a keyed
hash of the address as the study's joins are (``humanstudy.path.address_key``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import User
from django.contrib.auth.tokens import PasswordResetTokenGenerator, default_token_generator
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.crypto import salted_hmac
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_decode, urlsafe_base64_encode

from benchmark.models import Account
from engine.models import Visitor

WINDOW = timedelta(hours=1)


class SignUpError(Exception):
    """A sign-up refused; ``str()`` is a message for the person, ``status`` the HTTP
    status to answer with."""

    status = 400


class TooManySignUps(SignUpError):
    status = 429


@dataclass(frozen=True)
class SignUp:
    """A sign-up the form has validated (``forms.SignUpForm``)."""

    username: str
    email: str
    password: str
    organisation: str
    ip_address: str | None


def signups_per_hour_per_address() -> int:
    return max(0, int(getattr(settings, "SIGNUPS_PER_HOUR_PER_IP", 5)))


def address_key(ip_address: str | None) -> str:
    """A keyed hash of the client address: enough to count sign-ups, not to find anyone."""
    return salted_hmac(
        "benchmark.accounts.signup", ip_address or "unknown", algorithm="sha256"
    ).hexdigest()


class EmailConfirmationTokenGenerator(PasswordResetTokenGenerator):
    """Django's signed, expiring tokens (``PASSWORD_RESET_TIMEOUT``), under their own salt
    so that a password-reset token never confirms an address nor the reverse. The token
    covers the address and the confirmation time: it stops working once the address is
    confirmed or changed."""

    key_salt = "benchmark.accounts.EmailConfirmationTokenGenerator"

    def _make_hash_value(self, user: User, timestamp: int) -> str:
        account = Account.objects.filter(user=user).first()
        confirmed = account.email_confirmed_at if account else None
        return f"{user.pk}\x1f{user.email}\x1f{confirmed}\x1f{timestamp}"


confirmation_tokens = EmailConfirmationTokenGenerator()


def account_of(user) -> Account | None:
    """The user's ``Account`` row, if it has one (operator-made accounts may not)."""
    return getattr(user, "account", None)


def is_confirmed(user) -> bool:
    """Whether the account may hold an API token and own model names: an operator-made
    account always, a signed-up one once its e-mail address is confirmed."""
    account = account_of(user)
    return account is None or account.confirmed


def is_guest(user) -> bool:
    return bool(user is not None and user.is_authenticated and hasattr(user, "visitor"))


def do_sign_up(wanted: SignUp, guest: User | None = None) -> User:
    """Create the account (the caller logs it in and mails the confirmation link).

    1. Under a lock on the client address (parallel sign-ups cannot all pass the count),
       refuse when ``SIGNUPS_PER_HOUR_PER_IP`` accounts were made from it in the last hour.
    2. A signed-in visitor's guest account becomes the account: its username, address and
       password are set and its guest mark deleted, so every game and task it played stays
       with it. Anyone else gets a new account.
    3. Its ``Account`` row records the organisation, the time and the hashed address.
    """
    limit = signups_per_hour_per_address()
    key = address_key(wanted.ip_address)
    from engine.practice import lock_address

    try:
        with transaction.atomic():
            lock_address(wanted.ip_address, scope="signup")
            recent = Account.objects.filter(
                signed_up_from=key, signed_up_at__gte=timezone.now() - WINDOW
            )
            if recent.count() >= limit:
                raise TooManySignUps(
                    f"{limit} accounts have been made from your network in the last hour, the "
                    "most allowed; please try again later"
                    if limit
                    else "sign-up is closed on this site; ask its operators for an account"
                )
            if guest is not None and is_guest(guest):
                user = User.objects.select_for_update().get(pk=guest.pk)
                user.username = wanted.username
                user.email = wanted.email
                user.set_password(wanted.password)
                user.save(update_fields=["username", "email", "password"])
                Visitor.objects.filter(user=user).delete()
            else:
                user = User.objects.create_user(
                    wanted.username, email=wanted.email, password=wanted.password
                )
            Account.objects.create(
                user=user,
                organisation=wanted.organisation,
                signed_up_at=timezone.now(),
                signed_up_from=key,
            )
    except IntegrityError:  # the same username taken at the same moment
        raise SignUpError(f"the username {wanted.username!r} is taken; choose another") from None
    return user


def confirmation_link(user: User, base_url: str) -> str:
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    path = reverse("confirm-email", args=[uid, confirmation_tokens.make_token(user)])
    return f"{base_url.rstrip('/')}{path}"


def send_confirmation(user: User, base_url: str) -> None:
    """Mail the account's confirmation link to its address (through Django's mail
    settings: SMTP when ``EMAIL_HOST`` is set, else printed to the console)."""
    context = {
        "user": user,
        "link": confirmation_link(user, base_url),
        "site": base_url,
        "hours": settings.PASSWORD_RESET_TIMEOUT // 3600,
    }
    subject = render_to_string("registration/confirm_email_subject.txt", context).strip()
    body = render_to_string("registration/confirm_email.txt", context)
    send_mail(subject, body, None, [user.email])


def user_from_link(uidb64: str) -> User | None:
    try:
        pk = int(urlsafe_base64_decode(uidb64).decode())
    except (TypeError, ValueError, OverflowError, UnicodeDecodeError):
        return None
    return User.objects.filter(pk=pk).select_related("account").first()


def do_confirm_email(uidb64: str, token: str) -> User | None:
    """Confirm the address the link was sent to; returns the account, or None when the
    link is not valid (altered, expired, already used, or the address changed since)."""
    user = user_from_link(uidb64)
    if user is None or not confirmation_tokens.check_token(user, token):
        return None
    Account.objects.filter(user=user, email_confirmed_at__isnull=True).update(
        email_confirmed_at=timezone.now()
    )
    return user


def do_set_organisation(user: User, organisation: str) -> Account:
    account, _ = Account.objects.get_or_create(user=user)
    account.organisation = organisation
    account.save(update_fields=["organisation"])
    return account


def set_password_link(user: User, base_url: str) -> str:
    """A link to set the account's password: Django's password-reset confirmation page
    with its token, which stops working once a password is set (the token covers the
    stored password) or after ``PASSWORD_RESET_TIMEOUT``."""
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    path = reverse("password_reset_confirm", args=[uid, default_token_generator.make_token(user)])
    return f"{base_url.rstrip('/')}{path}"


def client_address(request) -> str | None:
    """The client's address as every per-address limit counts it (``AXES_CLIENT_IP_CALLABLE``):
    ``REMOTE_ADDR``, which uvicorn takes from X-Forwarded-For only when the connection comes
    from ``FORWARDED_ALLOW_IPS`` (the TLS proxy); no header is read here."""
    return request.META.get("REMOTE_ADDR")
