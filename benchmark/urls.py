from __future__ import annotations

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from benchmark import account, health
from engine import views as engine_views

urlpatterns = [
    path("", engine_views.home, name="home"),
    path("admin/", admin.site.urls),
    path("health/", health.health, name="health"),
    path("account/", account.account, name="account"),
    path("account/token/", account.token, name="account-token"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("api/v1/", include("engine.api_urls")),
    path("api/v1/", include("leaderboard.api_urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("domains/", include("engine.urls")),
    path("play/<int:session_id>/", engine_views.play, name="play"),
    path("docs/<slug:page>/", engine_views.docs_page, name="docs"),
    path("study/", include("humanstudy.urls")),
    path("leaderboard/", include("leaderboard.urls")),
    path("runs/", include("benchmark.run_urls")),
    path("api/v1/runs/", include("benchmark.api_urls")),
]
