"""The API's JSON parser (``REST_FRAMEWORK["DEFAULT_PARSER_CLASSES"]``).

Its own module, importing nothing of the project: DRF imports the parser classes while it
loads its settings, which other modules of the project do in turn.
"""

from __future__ import annotations

from rest_framework import parsers
from rest_framework.exceptions import ParseError


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser, with a body nested too deeply for Python's decoder answered as
    any malformed body is (400 with the error shape), not a server error."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - the body is nested too deeply") from None
