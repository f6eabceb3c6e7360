"""Every error of the API has the one documented shape ({"error": ..., "fields": ...}), and
the schema documents the answers each operation can give (benchmark/api_conventions.py).
The production pass checks the whole schema against the server with schemathesis
(tests/production/test_schema.py)."""

from __future__ import annotations

import pytest
import yaml
from django.core.management import call_command
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


@pytest.fixture
def client_with_token(orchard):
    from io import StringIO

    out = StringIO()
    call_command("create_api_token", "harness", stdout=out, stderr=StringIO())
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {out.getvalue().strip()}")
    return client


def assert_error(response, status: int, *, field: str | None = None) -> dict:
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert isinstance(body["error"], str) and body["error"]
    if field is not None:
        assert field in body["fields"] and field in body["error"]
    return body


def test_an_unknown_api_address_is_a_json_404_not_the_sites_page(client_with_token):
    body = assert_error(client_with_token.get("/api/v1/sessions/abc/"), 404)
    assert "/api/v1/sessions/abc/" in body["error"]
    assert_error(client_with_token.post("/api/v1/submissions/1,2/withdraw/"), 404)
    # Outside the API the site's HTML page stays.
    page = client_with_token.get("/no-such-page/")
    assert page.status_code == 404 and page["Content-Type"].startswith("text/html")


def test_auth_permission_method_and_not_found_errors_share_the_shape(orchard, client_with_token):
    assert_error(APIClient().get("/api/v1/instances/"), 401)
    assert_error(client_with_token.delete("/api/v1/instances/"), 405)
    assert_error(client_with_token.get("/api/v1/runs/"), 403)  # staff only
    assert_error(client_with_token.get("/api/v1/sessions/999999/"), 404)
    assert_error(client_with_token.get("/api/v1/submissions/999999/"), 404)


def test_invalid_input_names_each_field(client_with_token):
    body = assert_error(client_with_token.post("/api/v1/sessions/", {}, format="json"), 400)
    assert body["fields"] == {"instance": ["This field is required."]}
    body = assert_error(
        client_with_token.post("/api/v1/submissions/", {"model": "a  b"}), 400, field="model"
    )
    assert "may hold only ASCII letters" in body["fields"]["model"][0]


@pytest.mark.parametrize(
    "query", [{"limit": "x"}, {"limit": "-1"}, {"limit": "0"}, {"offset": "null"}, {"limit": ""}]
)
def test_paging_values_that_are_not_what_the_schema_says_are_refused(client_with_token, query):
    (name,) = query
    assert_error(client_with_token.get("/api/v1/instances/", query), 400, field=name)


@pytest.mark.parametrize("path", ["/api/v1/instances/", "/api/v1/leaderboard/"])
def test_an_empty_integer_filter_is_refused_not_ignored(client_with_token, path):
    assert_error(client_with_token.get(path, {"truths": ""}), 400, field="truths")
    assert client_with_token.get(path, {"truths": "4"}).status_code == 200


PUBLIC = {"/api/v1/leaderboard/", "/api/v1/family-leaderboard/", "/api/v1/families/"}


def test_the_schema_documents_the_error_answers(client_with_token):
    schema = yaml.safe_load(client_with_token.get("/api/schema/").content)
    error_ref = "#/components/schemas/Error"
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            responses = operation["responses"]
            assert {"400", "403", "405"} <= set(responses), (method, path)
            if "{" in path:
                assert "404" in responses, (method, path)
            public = {} in operation["security"]
            assert public == (path in PUBLIC), (method, path)
            assert ("401" in responses) != public, (method, path)
            error = responses["400"]["content"]["application/json"]["schema"]["$ref"]
            assert error in (error_ref, "#/components/schemas/RunRefused"), (method, path)
    fields = schema["components"]["schemas"]["Error"]["properties"]
    assert {"error", "fields", "invalid_moves"} <= set(fields)
    model = schema["components"]["schemas"]["SubmissionCreateRequest"]["properties"]["model"]
    assert model["minLength"] == 1 and model["maxLength"] == 100 and model["pattern"]


def test_a_body_nested_past_the_decoders_limit_is_a_400_not_a_crash(client_with_token):
    deep = '{"instance": ' + "[" * 20000 + "]" * 20000 + "}"
    body = assert_error(
        client_with_token.post("/api/v1/sessions/", deep, content_type="application/json"), 400
    )
    assert "nested too deeply" in body["error"]
