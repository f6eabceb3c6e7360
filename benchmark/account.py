"""The account pages: sign-up, e-mail confirmation, and the account page with the API
token, self-service and revocable (the rules are ``benchmark.accounts``').

The token's key is shown once, right after it is created or regenerated (kept in the
server-side session until that page is shown), and only its first characters after that.
A signed-up account gets a token once its e-mail address is confirmed. Study participants
have no token and no account page: they are sent to their study. A visitor's guest
account has no account page either; the sign-up page turns it into a real account.
"""

from __future__ import annotations

import logging

from axes.helpers import get_client_ip_address
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import LoginView
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST, require_safe
from rest_framework.authtoken.models import Token

from benchmark import accounts
from benchmark.forms import OrganisationForm, SignUpForm
from benchmark.permissions import is_study_participant, is_visitor

logger = logging.getLogger(__name__)

SHOW_ONCE = "account-new-token"
MODEL_BACKEND = "django.contrib.auth.backends.ModelBackend"


def _not_for_account_page(user):
    """Where a participant or a guest goes instead of an account page, or None."""
    if is_study_participant(user):
        return redirect("humanstudy:progress")
    if is_visitor(user):
        # A guest account has no API token (the API treats it as anonymous): signing up
        # makes it a real account.
        return redirect("signup")
    return None


def _account_page(request, *, error: str = "", status: int = 200, form=None):
    user = request.user
    return render(
        request,
        "account/account.html",
        {
            "token": Token.objects.filter(user=user).first(),
            "new_key": request.session.pop(SHOW_ONCE, None),
            "account": accounts.account_of(user),
            "confirmed": accounts.is_confirmed(user),
            "organisation_form": form
            or OrganisationForm(
                initial={"organisation": getattr(accounts.account_of(user), "organisation", "")}
            ),
            "error": error,
        },
        status=status,
    )


@require_safe
@login_required
def account(request):
    return _not_for_account_page(request.user) or _account_page(request)


@require_POST
@login_required
def token(request):
    """Create, regenerate (the old key stops working at once) or revoke the token. A
    signed-up account whose address is not confirmed yet may not get one (403)."""
    elsewhere = _not_for_account_page(request.user)
    if elsewhere is not None:
        return elsewhere
    action = request.POST.get("action", "")
    if action not in ("create", "regenerate", "revoke"):
        return _account_page(request, error="unknown action", status=400)
    if action != "revoke" and not accounts.is_confirmed(request.user):
        return _account_page(
            request,
            error="confirm your e-mail address first (follow the link we mailed you): an API "
            "token comes with a confirmed address",
            status=403,
        )
    Token.objects.filter(user=request.user).delete()
    if action != "revoke":
        request.session[SHOW_ONCE] = Token.objects.create(user=request.user).key
    return redirect("account")


@require_POST
@login_required
def organisation(request):
    """Set the organisation shown beside the username as the owner of its model names."""
    elsewhere = _not_for_account_page(request.user)
    if elsewhere is not None:
        return elsewhere
    form = OrganisationForm(request.POST)
    if not form.is_valid():
        return _account_page(request, form=form, status=400)
    accounts.do_set_organisation(request.user, form.cleaned_data["organisation"])
    messages.success(request, "Your organisation is saved.")
    return redirect("account")


def _mail_confirmation(request, user) -> None:
    try:
        accounts.send_confirmation(user, request.build_absolute_uri("/"))
    except Exception:
        # The account is made either way; the person can ask for the mail again.
        logger.exception("the confirmation mail to account %s could not be sent", user.pk)
        messages.error(
            request,
            "We could not send the confirmation mail just now; use “Send the link again” "
            "on this page in a moment.",
        )
        return
    messages.success(
        request,
        f"We sent a confirmation link to {user.email}. Follow it to confirm your address.",
    )


@require_http_methods(["GET", "HEAD", "POST"])
def signup(request):
    """Sign up: username, e-mail address, password, organisation (optional). A visitor
    signing up keeps their play (``accounts.do_sign_up``); the new account is logged in
    at once and its confirmation link mailed."""
    user = request.user
    if user.is_authenticated and not is_visitor(user):
        return redirect("humanstudy:progress" if is_study_participant(user) else "account")
    form = SignUpForm(request.POST if request.method == "POST" else None)
    if request.method != "POST":
        return render(request, "registration/signup.html", {"form": form})
    if not form.is_valid():
        return render(request, "registration/signup.html", {"form": form}, status=400)
    wanted = accounts.SignUp(
        username=form.cleaned_data["username"],
        email=form.cleaned_data["email"],
        password=form.cleaned_data["password1"],
        organisation=form.cleaned_data["organisation"],
        ip_address=get_client_ip_address(request),
    )
    try:
        made = accounts.do_sign_up(wanted, guest=user if is_visitor(user) else None)
    except accounts.SignUpError as error:
        context = {"form": form, "refusal": str(error)}
        return render(request, "registration/signup.html", context, status=error.status)
    login(request, made, backend=MODEL_BACKEND)
    _mail_confirmation(request, made)
    return redirect("account")


@require_POST
@login_required
def resend_confirmation(request):
    elsewhere = _not_for_account_page(request.user)
    if elsewhere is not None:
        return elsewhere
    if not accounts.is_confirmed(request.user):
        _mail_confirmation(request, request.user)
    return redirect("account")


@require_safe
def confirm_email(request, uidb64: str, token: str):
    """The link of the confirmation mail: confirms the address, or says the link is not
    valid (400) and how to get a new one."""
    user = accounts.do_confirm_email(uidb64, token)
    status = 200 if user is not None else 400
    return render(
        request, "registration/email_confirmed.html", {"confirmed_user": user}, status=status
    )


class SignInView(LoginView):
    """Django's sign-in page; a study participant always lands on their study page
    (whatever page they signed in from), never on the rest of the site."""

    def get_success_url(self) -> str:
        if hasattr(self.request.user, "participant"):
            return reverse("humanstudy:progress")
        return super().get_success_url()
