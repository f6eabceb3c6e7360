"""Model names: who may create, claim or write under which name. One rule for every path.

Every path that creates or uses a :class:`~leaderboard.models.ModelEntry` by name comes
here: uploads (``leaderboard.actions.submit_results``), KUMO's ranked games
(``leaderboard.ranked``, and through it ``evaluate --ranked``), the runner's submissions
(``evaluate``), the family runner (``run_family_tasks``) and the human study's row
(``leaderboard.recompute``). The rules:

1. **Reserved names.** The built-in players' names (KUMO's ``oracle``, ``random``,
   ``greedy``; the family runner's ``reference``, ``random``, ``blank``) and the human rows'
   names (``Humans (study)``, ``People``) belong to the platform. Only a platform write (a
   baseline or the human study, ``kind`` other than ``model``) may create them, as entries
   of that kind with no owner; an account, staff included, gets :class:`NameReserved`.
2. **Unique after normalisation.** Names are compared by ``model_name_key`` (NFKC and case
   folding), stored in a unique column. A name whose key is another account's entry is
   refused (:class:`NameTaken`); the owner (or staff) using its own name in another case
   gets its existing entry, whose stored spelling stays the first one.
3. **A platform write lands only in a platform entry.** A baseline or human write whose
   name is held by an entry of another kind or with an owner is refused
   (:class:`NameConflict`): results never land in someone else's entry.
4. **Confirmed accounts only.** An account made by self-service sign-up claims a new name
   only once its e-mail address is confirmed (:class:`NotConfirmed`; ``benchmark.accounts``).
5. **A cap per account.** An account may own ``settings.MODEL_NAMES_PER_ACCOUNT`` names
   (default 10), or what staff allowed it (``ModelNameAllowance``); staff have no cap
   (:class:`NameCapReached`).
"""

from __future__ import annotations

from functools import cache

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from leaderboard.models import (
    PLATFORM_OWNER,
    ModelEntry,
    ModelNameAllowance,
    model_name_key,
    validate_model_name,
)

# The human rows: KUMO's board (the study's analysis sample) and the family board; and the
# family board's row of everyone else's own play (never verified, never a model's name).
HUMANS = "Humans (study)"
PEOPLE = "People"
PRACTICE = "Practice (unverified)"
# The family runner's built-in players (benchmark.family_runner): baselines, not models.
FAMILY_BASELINES = ("reference", "random", "blank")


class ModelNameError(Exception):
    """A model name refused; ``str()`` says why and ``status`` is the HTTP status."""

    status = 400


class NameReserved(ModelNameError):
    status = 403


class NameTaken(ModelNameError):
    status = 403


class NameCapReached(ModelNameError):
    status = 403


class NotConfirmed(ModelNameError):
    """A signed-up account whose e-mail address is not confirmed yet (benchmark.accounts)."""

    status = 403


class NameConflict(ModelNameError):
    """A platform write whose name is held by an entry of another owner or kind."""

    status = 409


@cache
def platform_names() -> dict[str, str]:
    """Each name reserved for the platform → the kind of entry the platform keeps under it."""
    # Imported here: the runner imports this module.
    from benchmark.players import BUILT_IN_PLAYERS

    names = dict.fromkeys((*BUILT_IN_PLAYERS, *FAMILY_BASELINES), ModelEntry.Kind.BASELINE)
    names.update(dict.fromkeys((HUMANS, PEOPLE, PRACTICE), ModelEntry.Kind.HUMAN))
    return names


@cache
def reserved_names() -> dict[str, str]:
    """The reserved names by key (``model_name_key``) → the kind of the platform's entry."""
    return {model_name_key(name): kind for name, kind in platform_names().items()}


def owner_label(username: str | None, organisation: str | None = "") -> str:
    """How the board names an entry's owner: the account's username with its organisation
    (``benchmark.models.Account``) in brackets when it gave one, e.g. "ada (Analytical
    Engines Ltd)"; "platform" for an entry no account owns."""
    if not username:
        return PLATFORM_OWNER
    return f"{username} ({organisation})" if organisation else username


def owner_labels(player_names) -> dict[str, str]:
    """The owner each board player's name shows (one query): the owning account's
    username and organisation (``owner_label``), "platform" for the platform's entries and
    the family board's People row; a name with no entry (attempts stored before names
    were claimed) is missing."""
    wanted = set(player_names)
    labels = {PEOPLE: PLATFORM_OWNER} if PEOPLE in wanted else {}
    for name, username, organisation in ModelEntry.objects.filter(
        name__in=wanted - {PEOPLE}
    ).values_list("name", "owner__username", "owner__account__organisation"):
        labels[name] = owner_label(username, organisation)
    return labels


def reserved_list() -> str:
    return ", ".join(platform_names())


def clean_model_name(name: str) -> str:
    """The name, stripped, or :class:`ModelNameError` saying what is wrong with it."""
    name = (name or "").strip()
    try:
        validate_model_name(name)
    except ValidationError as error:
        raise ModelNameError(error.messages[0]) from None
    return name


def name_cap(user: User) -> int | None:
    """How many model names ``user`` may own; None: no cap (staff)."""
    if user.is_staff:
        return None
    allowance = ModelNameAllowance.objects.filter(user=user).values_list("names", flat=True)
    allowed = allowance.first()
    return allowed if allowed is not None else max(0, int(settings.MODEL_NAMES_PER_ACCOUNT))


def may_use_model(user: User | None, entry: ModelEntry) -> bool:
    """Whether ``user`` may submit or play under the language model ``entry``: its owner,
    or staff. ``None`` stands for the platform itself (a job or command the operator
    started)."""
    if user is None or user.is_staff:
        return True
    return entry.owner_id is not None and entry.owner_id == user.pk


def check_claim(
    name: str, *, user: User | None, kind: str = ModelEntry.Kind.MODEL
) -> tuple[str, ModelEntry | None]:
    """Check that ``user`` may write under ``name`` as an entry of ``kind``, writing nothing.

    Returns the cleaned name and the existing entry it resolves to (None: it would be
    created). Raises a :class:`ModelNameError` naming the rule that refuses it.
    """
    name = clean_model_name(name)
    key = model_name_key(name)
    platform_kind = reserved_names().get(key)
    entry = ModelEntry.objects.select_related("owner").filter(name_key=key).first()
    if kind == ModelEntry.Kind.MODEL:
        if platform_kind is not None:
            raise NameReserved(
                f"the model name {name!r} is reserved for the platform's built-in players and "
                f"human rows ({reserved_list()}, in any case); choose another name"
            )
        if entry is None:
            if user is not None:
                _check_confirmed(user)
                _check_cap(user)
            return name, None
        if entry.kind != ModelEntry.Kind.MODEL:
            raise NameReserved(
                f"the model name {name!r} is the platform's {entry.get_kind_display()} "
                f"{entry.name!r}; choose another name"
            )
        if not may_use_model(user, entry):
            same = "" if entry.name == name else f" (as {entry.name!r}: names ignore case)"
            raise NameTaken(
                f"the model {name!r} belongs to another account{same}; choose another name, "
                "or ask the site's staff to transfer it"
            )
        return name, entry
    # A platform write: a built-in baseline's or the human study's results.
    if platform_kind != kind:
        raise ModelNameError(
            f"{name!r} is not a platform name for a {ModelEntry.Kind(kind).label} (the "
            f"reserved names are {reserved_list()})"
        )
    if entry is not None and (entry.kind != kind or entry.owner_id is not None):
        owner = f"owned by account {entry.owner.username!r}" if entry.owner_id else "no owner"
        raise NameConflict(
            f"the entry {entry.name!r} is a {entry.get_kind_display()} with {owner}, not the "
            f"platform's {ModelEntry.Kind(kind).label}: nothing was written to it. Rename or "
            "delete that entry in the admin first"
        )
    return name, entry


def _check_confirmed(user: User) -> None:
    """A model name puts the account's name on the public board: a signed-up account must
    have confirmed its e-mail address first (operator-made accounts need not)."""
    from benchmark.accounts import is_confirmed

    if not is_confirmed(user):
        raise NotConfirmed(
            f"the account {user.username!r} has not confirmed its e-mail address yet; follow "
            "the link mailed at sign-up (or send it again from /account/) before claiming "
            "a model name"
        )


def _check_cap(user: User) -> None:
    cap = name_cap(user)
    if cap is None:
        return
    owned = ModelEntry.objects.filter(owner=user).count()
    if owned >= cap:
        raise NameCapReached(
            f"the account {user.username!r} already owns {owned} model name(s), its cap "
            f"(MODEL_NAMES_PER_ACCOUNT is {settings.MODEL_NAMES_PER_ACCOUNT}, unless staff "
            "raised it for the account); use one of its names, or ask the site's staff to "
            "raise the cap"
        )


def claim_model_name(
    name: str, *, user: User | None, kind: str = ModelEntry.Kind.MODEL
) -> ModelEntry:
    """The entry ``user`` writes to under ``name``, created if new (see the rules above).

    A language model is owned by ``user`` (none when the platform itself creates it); a
    baseline or the human row has no owner. Two parallel claims of a new name: one creates
    it, the other is checked again against the entry it lost to.
    """
    name, entry = check_claim(name, user=user, kind=kind)
    if entry is not None:
        return entry
    owner = user if kind == ModelEntry.Kind.MODEL else None
    try:
        with transaction.atomic():
            if owner is not None and not owner.is_staff:
                # Claims of one account are serialised, so parallel ones cannot pass the cap.
                User.objects.select_for_update().filter(pk=owner.pk).first()
                _check_cap(owner)
            return ModelEntry.objects.create(name=name, kind=kind, owner=owner)
    except IntegrityError:
        name, entry = check_claim(name, user=user, kind=kind)
        if entry is None:
            raise
        return entry
