from __future__ import annotations

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from benchmark import account, health
from benchmark.forms import PasswordResetForm
from engine import family_views
from engine import views as engine_views


def _schema_view(name: str, **options):
    """drf-spectacular's view ``name``, imported on its first request: the import takes
    0.2 s, which every command that loads the URLs (``check``, ``runserver``) would pay."""
    view = None

    def dispatch(request, *args, **kwargs):
        nonlocal view
        if view is None:
            from drf_spectacular import views

            view = getattr(views, name).as_view(**options)
        return view(request, *args, **kwargs)

    return dispatch


urlpatterns = [
    path("", engine_views.home, name="home"),
    path("admin/", admin.site.urls),
    path("health/", health.health, name="health"),
    path("account/", account.account, name="account"),
    path("account/token/", account.token, name="account-token"),
    path("account/organisation/", account.organisation, name="account-organisation"),
    path("account/confirmation/", account.resend_confirmation, name="account-confirmation"),
    path("accounts/signup/", account.signup, name="signup"),
    path(
        "accounts/confirm/<uidb64>/<token>/",
        account.confirm_email,
        name="confirm-email",
    ),
    # Before the auth URLs: a participant who signs in lands on their study page, and the
    # reset form serves accounts that never had a password too (benchmark.forms).
    path("accounts/login/", account.SignInView.as_view(), name="login"),
    path(
        "accounts/password_reset/",
        auth_views.PasswordResetView.as_view(
            form_class=PasswordResetForm,
            email_template_name="registration/password_reset_email.txt",
            subject_template_name="registration/password_reset_subject.txt",
        ),
        name="password_reset",
    ),
    path("accounts/", include("django.contrib.auth.urls")),
    path("api/v1/", include("engine.api_urls")),
    path("api/v1/", include("leaderboard.api_urls")),
    path("api/schema/", _schema_view("SpectacularAPIView"), name="api-schema"),
    path(
        "api/docs/", _schema_view("SpectacularSwaggerView", url_name="api-schema"), name="api-docs"
    ),
    path("domains/", include("engine.urls")),
    path("play/", engine_views.play_start, name="play-start"),
    path("play/<int:session_id>/", engine_views.play, name="play"),
    path("families/", family_views.family_list, name="families"),
    path("families/play/", family_views.play, name="family-play"),
    path("families/attempts/<int:attempt_id>/", family_views.attempt, name="family-attempt"),
    path(
        "families/practice/<int:request_id>/",
        family_views.practice_request,
        name="family-practice-request",
    ),
    path(
        "families/practice/<int:request_id>/status/",
        family_views.practice_request_status,
        name="family-practice-status",
    ),
    path("docs/<slug:page>/", engine_views.docs_page, name="docs"),
    path("study/", include("humanstudy.urls")),
    path("leaderboard/", include("leaderboard.urls")),
    path("runs/", include("benchmark.run_urls")),
    path("api/v1/runs/", include("benchmark.api_urls")),
]

# Under /api/, an unknown address answers the API's JSON error, not the site's HTML page.
handler404 = "benchmark.api_conventions.not_found"
handler500 = "benchmark.api_conventions.server_error"
