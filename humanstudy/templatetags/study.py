"""Template helpers of the study's pages."""

from __future__ import annotations

from django import template

from humanstudy.models import format_money

register = template.Library()


@register.filter
def money(amount, currency: str) -> str:
    """``{{ amount|money:config.currency }}``: the amount in the study's currency."""
    if amount in (None, ""):
        return ""
    return format_money(amount, currency)
