from __future__ import annotations

import re
from pathlib import Path

import markdown
import nh3
from axes.helpers import get_client_ip_address
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.db.models import Count, Q
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_POST

from engine import practice
from engine.analysis import domain_analysis
from engine.models import UNLISTED_SOURCES, Domain, Instance, PlaySession
from humanstudy.access import may_play
from leaderboard.structure import structure_by_setting
from leaderboard.views import PLOTLY_JS_VERSION

# An outcome's label in a book's line, quoted as the book writer quotes it ('heavy_webbing').
QUOTED_LABEL = re.compile(r"'([^\W_]+(?:_[^\W_]+)+)'")


def render_book(text: str) -> str:
    """Knowledge-book Markdown as safe HTML (books may come from an LLM: sanitise).

    Quoted outcome labels are shown in words, as the page shows observations
    (``Action.shown``): 'heavy_webbing' reads 'heavy webbing' in the log and in the book."""
    text = QUOTED_LABEL.sub(lambda found: "'" + found[1].replace("_", " ") + "'", text)
    html = markdown.markdown(text, extensions=["tables", "sane_lists"])
    return mark_safe(nh3.clean(html))


DOCS_DIR = Path(__file__).resolve().parent.parent / "docs"
# What the sanitiser keeps on docs pages: its defaults, and ids on headings (link targets).
DOCS_ATTRIBUTES = {
    tag: set(nh3.ALLOWED_ATTRIBUTES.get(tag, ()))
    | ({"id"} if tag in ("h1", "h2", "h3", "h4") else set())
    for tag in nh3.ALLOWED_TAGS
}


def render_docs(text: str) -> str:
    """A docs page's Markdown as HTML whose headings carry ids (``{#id}`` after a heading,
    else one made from its words), so pages and the board can link to a section."""
    html = markdown.markdown(
        text, extensions=["tables", "sane_lists", "attr_list", "toc", "fenced_code"]
    )
    html = nh3.clean(html, attributes=DOCS_ATTRIBUTES)
    # A wide table scrolls in its own box rather than widening the page (a phone's).
    html = html.replace("<table>", '<div class="table-scroll"><table>').replace(
        "</table>", "</table></div>"
    )
    return mark_safe(html)


def docs_page(request, page: str):
    """A page of the project's documentation (``docs/<page>.md``), rendered for readers of
    the site: the board links here to say what its numbers mean."""
    source = DOCS_DIR / f"{page}.md"
    if not page.replace("-", "").isalnum() or not source.is_file():
        raise Http404(f"no documentation page {page!r}")
    # Links between docs pages ("[api.md](api.md)") point at their pages here.
    text = re.sub(r"\]\(([a-z0-9-]+)\.md\)", r"](../\1/)", source.read_text(encoding="utf-8"))
    title = next((line[2:].strip() for line in text.splitlines() if line.startswith("# ")), page)
    return render(
        request, "docs_page.html", {"title": title, "body": render_docs(text), "page": page}
    )


def continue_url_for(user) -> str:
    """Where a player goes after a game: study participants back to their progress page."""
    if hasattr(user, "participant"):
        return reverse("humanstudy:progress")
    return reverse("home")


def _domains_with_counts():
    # Ranked and practice games' instances are one player's alone: not the domain's tasks.
    stored = ~Q(instances__source__in=UNLISTED_SOURCES)
    return Domain.objects.annotate(
        easy=Count("instances", filter=stored & Q(instances__n_truths=4, instances__n_actions=6)),
        hard=Count("instances", filter=stored & Q(instances__n_truths=12, instances__n_actions=16)),
        total=Count("instances", filter=stored),
    )


def home(request):
    if hasattr(request.user, "participant"):
        # A study participant's home is their study page, however they got here.
        return redirect("humanstudy:progress")
    return render(request, "home.html", {"domains": _domains_with_counts()})


def domain_list(request):
    return render(request, "engine/domain_list.html", {"domains": _domains_with_counts()})


def domain_detail(request, name: str):
    """The rules, the truth graph with its communities and split, and structure vs. results."""
    domain = get_object_or_404(Domain, name=name)
    page = domain_analysis(domain)
    context = {
        "domain": domain,
        "core": domain.to_core(),
        "analysis": page.analysis,
        "figures": [{"id": "truth-network", "figure": page.network}],
        "plotly_version": PLOTLY_JS_VERSION,
        "structure": structure_by_setting(domain),
        # The Play entry, unless the generator cannot make this domain's tasks.
        "playable": not domain.kumo_compatible
        and domain.truth_count >= practice.LEVELS["easy"][0]
        and domain.action_count >= practice.LEVELS["easy"][1],
    }
    return render(request, "engine/domain_detail.html", context)


@require_POST
def play_start(request):
    """The Play entry (home page, domain pages): start a practice game and open it.

    Anyone may, signed in or not (``engine.practice``); an anonymous visitor is signed in
    as the guest account made for their first game. Refusals (a study participant, the
    hourly limit, a domain that cannot generate) get a page saying why.
    """
    return start_practice_game(
        request,
        domain=request.POST.get("domain", "").strip(),
        level=request.POST.get("level", "easy").strip() or "easy",
    )


def start_practice_game(request, *, domain: str, level: str):
    """Ask for a practice KUMO game on ``domain`` at ``level`` for the request's player (the
    Play entry, and the families page's KUMO rows through ``engine.family_views.play``), or
    a page saying why not. The game is generated by a background job
    (``engine.family_practice``), never in this request: the player goes to the game once
    it is ready (at once when the job already ran, as in-process jobs do), else to the page
    that waits for it."""
    from engine import family_practice

    user = request.user if request.user.is_authenticated else None
    try:
        checked = practice.check_practice_request(
            user, domain=domain, level=level, ip_address=get_client_ip_address(request)
        )
        if user is None:
            guest = practice.do_make_guest(checked.ip_address)
            login(request, guest, backend="django.contrib.auth.backends.ModelBackend")
        outcome = family_practice.do_request_family_practice(
            request.user, family_practice.kumo_wanted(checked)
        )
    except practice.PracticeError as error:
        return render(
            request,
            "engine/play_refused.html",
            {"message": str(error), "participant": isinstance(error, practice.NotForParticipants)},
            status=error.status,
        )
    wanted = outcome.request
    wanted.refresh_from_db(fields=["status", "session"])
    if wanted.session_id is not None:
        return redirect("play", session_id=wanted.session_id)
    return redirect("family-practice-request", request_id=wanted.pk)


@login_required
def play(request, session_id: int):
    """The play page: the knowledge book on the left, the task on the right.

    The page itself carries no game state; play.js opens the session's websocket, which
    sends the current state on connect (and after every move).
    """
    session = get_object_or_404(
        PlaySession.objects.select_related("instance__domain", "book").defer(
            "instance__domain__data"
        ),
        pk=session_id,
        player=request.user,
    )
    if not may_play(request.user, session.instance_id):
        # A study participant plays their own task set only; as for a stranger's session,
        # the page does not say whether the session exists.
        raise Http404("no such session")
    return render(
        request,
        "engine/play.html",
        {
            "session": session,
            "domain": session.instance.domain,
            "book_html": render_book(session.book_text()),
            "continue_url": continue_url_for(request.user),
            "practice": practice_of(session),
        },
    )


def practice_of(session: PlaySession) -> dict | None:
    """For a practice game, what "Play another" starts: the same domain and level."""
    if session.instance.source != Instance.Source.PRACTICE:
        return None
    instance = session.instance
    level = next(
        (
            name
            for name, pair in practice.LEVELS.items()
            if pair == (instance.n_truths, instance.n_actions)
        ),
        "easy",
    )
    return {"domain": instance.domain.name, "level": level}
