"""The API docs page (/api/docs/) is public and takes every file it needs from this site:
Swagger UI comes from drf-spectacular-sidecar, never from a CDN. (The real-browser check that
it requests nothing from another host is in tests/browser/test_trust_pages.py.)"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from urllib.parse import urlparse

import pytest
from django.conf import settings
from django.contrib.staticfiles import finders

pytestmark = pytest.mark.django_db

# Attributes that make a browser fetch or navigate to a URL.
URL_ATTRIBUTES = {"src", "href", "action", "formaction", "poster", "data", "srcset"}
# Absolute or protocol-relative URLs in a stylesheet or script: url(...), "https://…", "//…".
CSS_URL = re.compile(r"""url\(\s*['"]?([^'")\s]+)""")
SCRIPT_URL = re.compile(r"""["'`]((?:[a-z][a-z0-9+.-]*:)?//[^"'`\s]*)""", re.IGNORECASE)


class UrlCollector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self._in_code = False

    def handle_starttag(self, tag, attrs) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name in URL_ATTRIBUTES:
                parts = value.split(",") if name == "srcset" else [value]
                self.urls += [part.strip().split(" ")[0] for part in parts]
            elif name == "style":
                self.urls += CSS_URL.findall(value)
        self._in_code = tag in ("script", "style")

    def handle_endtag(self, tag) -> None:
        self._in_code = False

    def handle_data(self, data) -> None:
        if self._in_code:
            self.urls += CSS_URL.findall(data) + SCRIPT_URL.findall(data)


def page_urls(html: str) -> list[str]:
    collector = UrlCollector()
    collector.feed(html)
    return collector.urls


def test_it_serves_the_docs_page_to_anyone(client):
    response = client.get("/api/docs/")
    assert response.status_code == 200
    assert 'id="swagger-ui"' in response.content.decode()


def test_it_references_no_other_host(client):
    html = client.get("/api/docs/").content.decode()
    urls = page_urls(html)
    # The page does load its scripts, stylesheet, icon and schema (the parser saw them).
    assert any(url.endswith("swagger-ui-bundle.js") for url in urls), urls
    assert any(url.endswith("swagger-ui.css") for url in urls), urls
    assert "/api/schema/" in urls or '"/api/schema/"' in html
    foreign = [
        url
        for url in urls
        if urlparse(url).netloc not in ("", "testserver") or url.startswith("//")
    ]
    assert foreign == []
    assert "cdn.jsdelivr.net" not in html and "unpkg.com" not in html


def test_it_takes_swagger_ui_from_files_shipped_with_the_site(client):
    html = client.get("/api/docs/").content.decode()
    assets = [url for url in page_urls(html) if url.startswith(settings.STATIC_URL)]
    assert len(assets) >= 3, assets
    for url in assets:
        path = url.removeprefix(settings.STATIC_URL)
        assert path.startswith("drf_spectacular_sidecar/"), url
        assert finders.find(path), f"{url} is not a static file of this site"
