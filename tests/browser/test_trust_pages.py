"""Pages of the trust issue in a real browser: the API docs load nothing from another host,
and a model name holding markup is drawn as text on the heat map, never as a link."""

from __future__ import annotations

import json
from io import StringIO
from urllib.parse import urlparse

from django.contrib.auth.models import User
from django.core.management import call_command
from playwright.sync_api import expect

from engine.models import Instance
from leaderboard import actions
from leaderboard.models import ModelEntry
from tests.browser.test_play_page import BrowserTestCase

LINK = '<a href="http://evil.example/phish">win</a>'


class TrustPagesTests(BrowserTestCase):
    def test_the_api_docs_load_nothing_from_another_host(self):
        page = self.start_browser()
        requested: list[str] = []
        page.on("request", lambda request: requested.append(request.url))
        page.goto(f"{self.live_server_url}/api/docs/")
        # Swagger UI drew the operations from the site's own schema.
        expect(page.locator(".opblock").first).to_be_visible()
        expect(page.locator("body")).to_contain_text("/api/v1/ranked-games/")
        own = urlparse(self.live_server_url).netloc
        foreign = [url for url in requested if urlparse(url).netloc not in (own, "")]
        assert requested and foreign == [], foreign

    def test_markup_in_a_model_name_is_text_on_the_heat_map(self):
        call_command("import_domain", str(self.small_domain_file), stdout=StringIO())
        call_command(
            "generate_tasks", *"orchard --truths 5 --actions 4 --count 3".split(), stdout=StringIO()
        )
        user = User.objects.create_user("researcher", password="a long password here")
        lines = [
            {"seed": row.seed, "run": 0, "actions": [], "answer": row.valid_truths[0]}
            for row in Instance.objects.order_by("seed")
        ]
        actions.submit_results(
            user,
            model="legacy",
            domain="orchard",
            n_truths=5,
            n_actions=4,
            fmt="native",
            content="".join(json.dumps(line) + "\n" for line in lines).encode(),
        )
        # A name stored before names were validated (or typed by an admin).
        ModelEntry.objects.filter(name="legacy").update(name=LINK)
        from leaderboard.recompute import recompute

        recompute(full=True)

        page = self.start_browser()
        page.goto(f"{self.live_server_url}/leaderboard/heatmap/?setting=5x4")
        plot = page.locator("#figure-heatmap-plot, .js-plotly-plot").first
        expect(plot).to_be_visible()
        expect(page.locator("svg text", has_text=LINK).first).to_be_visible()
        assert page.locator('a[href*="evil.example"]').count() == 0
        assert page.locator('svg a, svg [*|href*="evil.example"]').count() == 0
