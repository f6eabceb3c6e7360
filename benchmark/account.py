"""The researcher's account page: their API token, self-service and revocable.

The token's key is shown once, right after it is created or regenerated (kept in the
server-side session until that page is shown), and only its first characters after that.
Study participants have no token and no account page: they are sent to their study.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import LoginView
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST, require_safe
from rest_framework.authtoken.models import Token

from benchmark.permissions import is_study_participant, is_visitor

SHOW_ONCE = "account-new-token"


@require_safe
@login_required
def account(request):
    if is_study_participant(request.user):
        return redirect("humanstudy:progress")
    if is_visitor(request.user):
        # A guest account has no API token: the API treats it as anonymous.
        return redirect("home")
    token = Token.objects.filter(user=request.user).first()
    return render(
        request,
        "account/account.html",
        {"token": token, "new_key": request.session.pop(SHOW_ONCE, None)},
    )


@require_POST
@login_required
def token(request):
    """Create, regenerate (the old key stops working at once) or revoke the token."""
    if is_study_participant(request.user):
        return redirect("humanstudy:progress")
    if is_visitor(request.user):
        return redirect("home")
    action = request.POST.get("action", "")
    if action not in ("create", "regenerate", "revoke"):
        return render(request, "account/account.html", {"error": "unknown action"}, status=400)
    Token.objects.filter(user=request.user).delete()
    if action != "revoke":
        request.session[SHOW_ONCE] = Token.objects.create(user=request.user).key
    return redirect("account")


class SignInView(LoginView):
    """Django's sign-in page; a study participant always lands on their study page
    (whatever page they signed in from), never on the rest of the site."""

    def get_success_url(self) -> str:
        if hasattr(self.request.user, "participant"):
            return reverse("humanstudy:progress")
        return super().get_success_url()
