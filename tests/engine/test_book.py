"""Knowledge books: what write_book writes, and what check_book accepts and rejects."""

from __future__ import annotations

import random
import re
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engine.core.families.kumo.book import check_book, format_number, plural, write_book
from engine.core.families.kumo.domain_io import domain_from_json
from engine.core.families.kumo.generate import GenerationError, generate_instance
from engine.core.families.kumo.types import Action, Domain, Instance, State
from tests.engine.strategies import domains

DOMAIN = Domain(
    name="clinic",
    title="Respiratory and metabolic clinic",
    description="Identify the patient's disease by ordering diagnostic tests.",
    truth_noun="disease",
    action_noun="diagnostic test",
    truths=(
        "Asthma",
        "Influenza",
        "Pneumonia",
        "Lung Cancer",
        "Diabetes",
        "Hypoglycaemia",
        "Measles",
    ),
    actions=(
        Action(
            "Chest X-Ray",
            "str",
            (
                State(frozenset({"Pneumonia", "Lung Cancer"}), label="normal"),
                State(frozenset({"Asthma"}), label="consolidation"),
                State(frozenset({"Measles"}), label="mass"),
            ),
            description=(
                "Plain radiograph of the chest. A clear film confirms good health. "
                "Often ordered before a Throat Swab. It takes ten minutes."
            ),
        ),
        Action(
            "Fasting Glucose",
            "float",
            (
                State(frozenset({"Diabetes"}), range=(50.0, 99.0)),
                State(frozenset(), range=(99.0, 125.0)),
                State(frozenset({"Hypoglycaemia"}), range=(125.0, 400.0)),
            ),
            unit="mg/dL",
        ),
        Action(
            "Throat Swab",
            "str",
            (
                State(frozenset({"Influenza", "Measles"}), label="negative"),
                State(frozenset({"Asthma", "Lung Cancer"}), label="positive"),
            ),
        ),
        Action(
            "Rash Check",
            "str",
            (
                State(frozenset({"Measles"}), label="absent"),
                State(frozenset(), label="present"),
            ),
        ),
    ),
)

# Measles and the Rash Check are in the domain but not in this task.
INSTANCE = Instance(
    truths=("Pneumonia", "Asthma", "Influenza", "Lung Cancer", "Diabetes", "Hypoglycaemia"),
    actions=("Throat Swab", "Chest X-Ray", "Fasting Glucose"),
    observations={
        "Chest X-Ray": "consolidation",
        "Fasting Glucose": 80.0,
        "Throat Swab": "negative",
    },
    valid_truths=("Hypoglycaemia",),
    seed=3,
)

# A free-text book in the way an LLM might write one: different layout, numbers written
# differently, rule-outs in prose and in nested lists.
FREE_TEXT_BOOK = """\
# Respiratory and metabolic guide

Six diseases are possible here: Asthma, Diabetes, Hypoglycaemia, Influenza, Lung Cancer
and Pneumonia.

**Chest X-Ray.** A normal film excludes Pneumonia and Lung Cancer. When the film shows
consolidation, you can rule out Asthma. A mass on the film does not exclude any of the
candidates.

**Fasting Glucose** (mg/dL):
* 50.0–99.0: rules out
  - Diabetes
* 99-125: nothing can be ruled out.
* [125, 400]: Hypoglycaemia is ruled out.

**Throat Swab**: a negative swab means Influenza can be ruled out; a positive swab rules
out Asthma and Lung Cancer.

Remember: results only ever rule diseases out, and a result never confirms a disease.
"""


def section(book: str, action: str) -> str:
    """The lines of write_book's section on ``action`` (test helper; relies on the layout)."""
    match = re.search(rf"^### {re.escape(action)}\n(.*?)(?=^##)", book, re.MULTILINE | re.DOTALL)
    assert match, action
    return match.group(1)


# -- write_book ----------------------------------------------------------------------------


def test_the_book_introduces_the_task_in_the_domains_own_words():
    book = write_book(DOMAIN, INSTANCE)

    assert book.startswith("# Respiratory and metabolic clinic: a guidebook\n")
    assert "Identify the patient's disease by ordering diagnostic tests." in book
    assert "Exactly one of the 6 diseases listed below is valid" in book
    assert "take the diagnostic tests described in this guidebook" in book
    assert "## How to reason" in book


def test_the_book_lists_the_tasks_truths_alphabetically():
    book = write_book(DOMAIN, INSTANCE)

    listed = re.search(r"## The 6 diseases\n\n((?:- .*\n)+)", book)
    assert listed
    assert listed.group(1).splitlines() == [
        "- Asthma",
        "- Diabetes",
        "- Hypoglycaemia",
        "- Influenza",
        "- Lung Cancer",
        "- Pneumonia",
    ]


def test_each_action_gets_a_section_in_alphabetical_order():
    book = write_book(DOMAIN, INSTANCE)

    headings = re.findall(r"^### (.*)$", book, re.MULTILINE)
    assert headings == ["Chest X-Ray", "Fasting Glucose", "Throat Swab"]


def test_every_outcome_is_given_with_exactly_the_task_truths_it_rules_out():
    lines = section(write_book(DOMAIN, INSTANCE), "Chest X-Ray").splitlines()

    assert "- If the result is 'normal': rule out Lung Cancer, Pneumonia." in lines
    assert "- If the result is 'consolidation': rule out Asthma." in lines
    # 'mass' rules out only Measles, which is not one of this task's diseases.
    assert "- If the result is 'mass': this outcome rules out none of the listed diseases." in lines


def test_float_outcomes_are_ranges_with_their_unit_and_shared_endpoints_are_placed():
    text = section(write_book(DOMAIN, INSTANCE), "Fasting Glucose")

    assert "The result is a number in mg/dL." in text
    assert "- If the result is at least 50 and at most 99 mg/dL: rule out Diabetes." in text
    # 99 and 125 belong to the first range that contains them (Action.state_for).
    assert "- If the result is above 99 and at most 125 mg/dL: this outcome rules out none" in text
    assert "- If the result is above 125 and at most 400 mg/dL: rule out Hypoglycaemia." in text


def test_the_book_leaves_out_whatever_is_not_in_the_task():
    book = write_book(DOMAIN, INSTANCE)

    assert "Measles" not in book
    assert "Rash Check" not in book


def test_descriptions_are_kept_except_sentences_that_confirm_or_name_things():
    text = section(write_book(DOMAIN, INSTANCE), "Chest X-Ray")

    assert "Plain radiograph of the chest. It takes ten minutes." in text
    assert "confirms" not in text
    assert "Throat Swab" not in text


def test_the_book_does_not_depend_on_the_answer_the_observations_or_the_order():
    other = Instance(
        truths=tuple(reversed(INSTANCE.truths)),
        actions=("Fasting Glucose", "Chest X-Ray", "Throat Swab"),
        observations={"Chest X-Ray": "normal", "Fasting Glucose": 300.0, "Throat Swab": "positive"},
        valid_truths=("Asthma",),
        seed=99,
    )

    assert write_book(DOMAIN, other) == write_book(DOMAIN, INSTANCE)


def test_the_book_passes_the_check():
    assert check_book(DOMAIN, INSTANCE, write_book(DOMAIN, INSTANCE)) == []


@pytest.mark.parametrize(
    ("value", "written"),
    [(100.0, "100"), (-5.0, "-5"), (0.25, "0.25"), (1e-05, "0.00001"), (400.5, "400.5")],
)
def test_numbers_are_written_the_way_people_write_them(value, written):
    assert format_number(value) == written


@pytest.mark.parametrize(
    ("noun", "nouns"),
    [("disease", "diseases"), ("diagnostic test", "diagnostic tests"), ("assay", "assays")]
    + [("allergy", "allergies"), ("analysis", "analyses"), ("patch", "patches")],
)
def test_nouns_are_made_plural(noun, nouns):
    assert plural(noun) == nouns


# -- check_book on hand-made books ---------------------------------------------------------


def test_the_check_accepts_a_free_text_book_with_its_own_layout():
    assert check_book(DOMAIN, INSTANCE, FREE_TEXT_BOOK) == []


def test_the_check_reports_an_unnamed_truth_and_action():
    book = FREE_TEXT_BOOK.replace("Influenza", "flu").replace("**Throat Swab**", "**Swab**")

    problems = check_book(DOMAIN, INSTANCE, book)

    assert "truth 'Influenza' is never named" in problems
    assert "action 'Throat Swab' is never named" in problems


def test_the_check_reports_an_outcome_that_is_not_given():
    book = FREE_TEXT_BOOK.replace("* [125, 400]: Hypoglycaemia is ruled out.\n", "")

    problems = check_book(DOMAIN, INSTANCE, book)

    assert (
        "outcome 125 to 400 of 'Fasting Glucose' is not given in the part of the book on "
        "'Fasting Glucose'" in problems
    )


def test_the_check_reports_a_rule_out_missing_from_the_actions_part():
    book = FREE_TEXT_BOOK.replace("excludes Pneumonia and Lung Cancer", "excludes Lung Cancer")

    problems = check_book(DOMAIN, INSTANCE, book)

    assert problems == [
        "outcome 'normal' of 'Chest X-Ray' rules out 'Pneumonia', but the part of the book on "
        "'Chest X-Ray' never names 'Pneumonia'"
    ]


def test_the_check_reports_rule_outs_given_under_the_wrong_outcome():
    book = FREE_TEXT_BOOK.replace(
        "A normal film excludes Pneumonia and Lung Cancer. When the film shows\nconsolidation, "
        "you can rule out Asthma.",
        "A normal film excludes Asthma and Lung Cancer. When the film shows\nconsolidation, "
        "you can rule out Pneumonia.",
    )

    problems = check_book(DOMAIN, INSTANCE, book)

    assert (
        "outcome 'normal' of 'Chest X-Ray' rules out 'Pneumonia', but the book does not say so"
        in problems
    )
    assert (
        "outcome 'consolidation' of 'Chest X-Ray' rules out 'Asthma', but the book does not say so"
        in problems
    )
    assert (
        "outcome 'normal' of 'Chest X-Ray' is said to rule out 'Asthma', which it does not rule out"
        in problems
    )


def test_the_check_reports_an_outcome_presented_as_a_confirmation():
    book = FREE_TEXT_BOOK.replace(
        "a positive swab rules\nout Asthma and Lung Cancer.",
        "a positive swab confirms the presence of a virus.",
    )

    problems = check_book(DOMAIN, INSTANCE, book)

    assert any(
        p.startswith("states a confirmation, not a rule-out") and "positive swab" in p
        for p in problems
    )


@pytest.mark.parametrize(
    "sentence",
    [
        "An elevated glucose indicates Diabetes.",
        "A normal film is consistent with Pneumonia.",
        "A positive swab points to Influenza.",
        "Consolidation suggests Pneumonia.",
        "A mass means it is Lung Cancer.",
    ],
)
def test_the_check_reports_confirming_language_about_a_truth(sentence):
    problems = check_book(DOMAIN, INSTANCE, FREE_TEXT_BOOK + "\n" + sentence + "\n")

    assert any(p.startswith("states a confirmation") for p in problems), problems


def test_the_check_accepts_a_negated_confirmation():
    book = FREE_TEXT_BOOK + "\nA negative swab does not confirm Pneumonia.\n"

    assert check_book(DOMAIN, INSTANCE, book) == []


@pytest.mark.parametrize(
    "sentence",
    ["The answer is Hypoglycaemia.", "Hypoglycaemia is the correct disease.", "It must be Asthma."],
)
def test_the_check_reports_a_book_that_singles_out_an_answer(sentence):
    problems = check_book(DOMAIN, INSTANCE, FREE_TEXT_BOOK + "\n" + sentence + "\n")

    assert any(p.startswith("singles out") for p in problems), problems


def test_the_check_reports_a_book_that_predicts_an_outcome():
    book = FREE_TEXT_BOOK + "\nIn this case the Throat Swab will show negative.\n"

    assert any(p.startswith("predicts an outcome") for p in check_book(DOMAIN, INSTANCE, book))


def test_the_check_reports_truths_and_actions_outside_the_task():
    book = FREE_TEXT_BOOK + "\nMeasles is also worth keeping in mind; try a Rash Check.\n"

    problems = check_book(DOMAIN, INSTANCE, book)

    assert "names 'Measles', which is not one of this task's truths" in problems
    assert "names 'Rash Check', which is not one of this task's actions" in problems


def test_the_check_does_not_read_a_name_inside_a_longer_name():
    domain = Domain(
        name="covid",
        truths=("COVID-19", "Flu"),
        actions=(
            Action(
                "COVID-19 PCR Test",
                "str",
                (
                    State(frozenset({"COVID-19"}), label="negative"),
                    State(frozenset({"Flu"}), label="positive"),
                ),
            ),
        ),
    )
    instance = Instance(
        truths=("COVID-19", "Flu"),
        actions=("COVID-19 PCR Test",),
        observations={"COVID-19 PCR Test": "positive"},
        valid_truths=("COVID-19",),
        seed=0,
    )
    book = "Truths: Flu.\n\nCOVID-19 PCR Test: negative rules out nothing; positive rules out Flu."

    problems = check_book(domain, instance, book)

    assert "truth 'COVID-19' is never named" in problems


# -- outcome labels that are also names of truths -----------------------------------------

ECG, HOLTER, THYROID = (
    "Electrocardiogram (ECG)",
    "Holter Monitor",
    "Thyroid Function Tests (TSH, T3, T4)",
)

# As in the original KUMO medical domain: the ECG can show 'arrhythmia' while Arrhythmia is
# a disease, and thyroid tests have outcomes named after the thyroid diseases.
COLLIDING = Domain(
    name="cardio-thyroid",
    title="Heart and thyroid clinic",
    truth_noun="disease",
    action_noun="diagnostic test",
    truths=(
        "Arrhythmia",
        "Myocardial Infarction",
        "Stable Angina",
        "Hypothyroidism",
        "Hyperthyroidism",
        "Thyroiditis",
    ),
    actions=(
        Action(
            ECG,
            "str",
            (
                State(frozenset({"Myocardial Infarction", "Stable Angina"}), label="normal"),
                State(frozenset({"Stable Angina"}), label="arrhythmia"),
                State(frozenset(), label="ischemic_changes"),
            ),
        ),
        Action(
            HOLTER,
            "str",
            (
                State(frozenset({"Arrhythmia"}), label="normal"),
                State(frozenset(), label="Arrhythmia"),
            ),
        ),
        Action(
            THYROID,
            "str",
            (
                State(
                    frozenset({"Hyperthyroidism", "Hypothyroidism", "Thyroiditis"}), label="normal"
                ),
                State(frozenset({"Hyperthyroidism"}), label="hypothyroidism"),
                State(frozenset({"Hypothyroidism"}), label="hyperthyroidism"),
                State(frozenset(), label="thyroiditis"),
            ),
        ),
    ),
)
COLLIDING_INSTANCE = Instance(
    truths=COLLIDING.truths,
    actions=(THYROID, ECG, HOLTER),
    observations={ECG: "ischemic_changes", HOLTER: "Arrhythmia", THYROID: "thyroiditis"},
    valid_truths=("Thyroiditis",),
    seed=0,
)

# The same knowledge in free text: outcomes and truths of the same name in several layouts.
COLLIDING_FREE_TEXT_BOOK = """\
# Heart and thyroid guide

The candidates are Arrhythmia, Myocardial Infarction, Stable Angina, Hypothyroidism,
Hyperthyroidism and Thyroiditis.

**Electrocardiogram (ECG).** A normal tracing excludes Myocardial Infarction and Stable Angina.
An arrhythmia on the tracing rules out Stable Angina. Ischemic changes rule out nothing.

**Holter Monitor**: a normal recording rules out Arrhythmia; if it records arrhythmia, no
disease can be crossed off.

**Thyroid Function Tests (TSH, T3, T4)**
* normal: rules out
  - Hyperthyroidism
  - Hypothyroidism
  - Thyroiditis
* hypothyroidism: rules out Hyperthyroidism.
* If the result is hyperthyroidism, Hypothyroidism is ruled out.
* thyroiditis: nothing is ruled out.
"""


def colliding_book_with(action: str, old: str, new: str) -> str:
    """write_book's book for COLLIDING_INSTANCE with ``old`` replaced in one section."""
    book = write_book(COLLIDING, COLLIDING_INSTANCE)
    text = section(book, action)
    assert old in text, (action, old)
    return book.replace(text, text.replace(old, new))


def test_a_book_gives_outcomes_named_like_truths_and_passes_the_check():
    book = write_book(COLLIDING, COLLIDING_INSTANCE)

    assert "- If the result is 'arrhythmia': rule out Stable Angina." in section(book, ECG)
    assert "- If the result is 'hypothyroidism': rule out Hyperthyroidism." in section(
        book, THYROID
    )
    assert check_book(COLLIDING, COLLIDING_INSTANCE, book) == []


def test_the_check_accepts_a_free_text_book_with_outcomes_named_like_truths():
    assert check_book(COLLIDING, COLLIDING_INSTANCE, COLLIDING_FREE_TEXT_BOOK) == []


@pytest.mark.parametrize(
    ("action", "line"),
    [
        (ECG, "- If the result is 'arrhythmia': rule out Stable Angina.\n"),
        (HOLTER, "- If the result is 'Arrhythmia': this outcome rules out none of the listed"),
        (THYROID, "- If the result is 'hypothyroidism': rule out Hyperthyroidism.\n"),
        (THYROID, "- If the result is 'thyroiditis': this outcome rules out none of the listed"),
    ],
)
def test_the_check_reports_a_missing_outcome_named_like_a_truth(action, line):
    # The truth of the same name is still given, in another outcome's rule-outs.
    book = colliding_book_with(action, line, "")
    label = re.search(r"'(.*?)'", line).group(1)

    assert check_book(COLLIDING, COLLIDING_INSTANCE, book) == [
        f"outcome '{label}' of '{action}' is not given in the part of the book on '{action}'"
    ]


def test_the_check_reports_a_missing_rule_out_of_a_truth_named_like_an_outcome():
    book = colliding_book_with(
        THYROID, "rule out Hyperthyroidism, Hypothyroidism, Thyroiditis.", "rule out Thyroiditis."
    )

    assert check_book(COLLIDING, COLLIDING_INSTANCE, book) == [
        f"outcome 'normal' of '{THYROID}' rules out '{truth}', but the book does not say so"
        for truth in ("Hyperthyroidism", "Hypothyroidism")
    ]


def test_the_check_reports_a_missing_rule_out_by_an_outcome_named_like_a_truth():
    book = colliding_book_with(
        THYROID,
        "'hypothyroidism': rule out Hyperthyroidism.",
        "'hypothyroidism': this outcome rules out none of the listed diseases.",
    )

    assert check_book(COLLIDING, COLLIDING_INSTANCE, book) == [
        f"outcome 'hypothyroidism' of '{THYROID}' rules out 'Hyperthyroidism', but the book "
        "does not say so"
    ]


def test_an_outcome_does_not_stand_in_for_the_truth_of_the_same_name_it_rules_out():
    domain = Domain(
        name="probe",
        truths=("Alpha", "Beta", "Gamma"),
        actions=(
            Action(
                "Probe",
                "str",
                (
                    State(frozenset({"Alpha", "Beta"}), label="alpha"),
                    State(frozenset({"Gamma"}), label="beta"),
                    State(frozenset(), label="gamma"),
                ),
            ),
        ),
    )
    instance = Instance(
        truths=("Alpha", "Beta", "Gamma"),
        actions=("Probe",),
        observations={"Probe": "gamma"},
        valid_truths=("Gamma",),
        seed=0,
    )
    book = write_book(domain, instance)
    assert "- If the result is 'alpha': rule out Alpha, Beta." in book
    assert check_book(domain, instance, book) == []

    problems = check_book(domain, instance, book.replace("rule out Alpha, Beta.", "rule out Beta."))

    # The only 'alpha' left in the part is the outcome, which does not name the truth.
    assert problems == [
        "outcome 'alpha' of 'Probe' rules out 'Alpha', but the part of the book on 'Probe' "
        "never names 'Alpha'"
    ]


@pytest.mark.parametrize(
    ("action", "old", "new"),
    [
        (THYROID, "'hypothyroidism': rule out", "'hypothyroidism': confirms"),
        (ECG, "'arrhythmia': rule out Stable Angina.", "'arrhythmia': this confirms it."),
        (
            ECG,
            "'arrhythmia': rule out Stable Angina.",
            "'arrhythmia': rule out Stable Angina.\nAn arrhythmia on the ECG indicates Arrhythmia.",
        ),
    ],
)
def test_the_check_reports_a_confirmation_with_names_shared_by_outcomes_and_truths(
    action, old, new
):
    problems = check_book(COLLIDING, COLLIDING_INSTANCE, colliding_book_with(action, old, new))

    assert any(p.startswith("states a confirmation") for p in problems), problems


@pytest.mark.parametrize(
    ("action", "old", "new", "expected"),
    [
        (
            THYROID,
            "'hypothyroidism': rule out Hyperthyroidism.",
            "'hypothyroidism': rule out Hyperthyroidism, Thyroiditis.",
            [f"outcome 'hypothyroidism' of '{THYROID}' is said to rule out 'Thyroiditis'"],
        ),
        (
            THYROID,
            "'hypothyroidism': rule out Hyperthyroidism.",
            "'hypothyroidism': rule out Hypothyroidism.",
            [
                f"outcome 'hypothyroidism' of '{THYROID}' rules out 'Hyperthyroidism', but the "
                "book does not say so",
                f"outcome 'hypothyroidism' of '{THYROID}' is said to rule out 'Hypothyroidism'",
            ],
        ),
        (
            ECG,
            "'arrhythmia': rule out Stable Angina.",
            "'arrhythmia': rule out Stable Angina, Arrhythmia.",
            [f"outcome 'arrhythmia' of '{ECG}' is said to rule out 'Arrhythmia'"],
        ),
    ],
)
def test_the_check_reports_a_wrong_rule_out_with_names_shared_by_outcomes_and_truths(
    action, old, new, expected
):
    problems = check_book(COLLIDING, COLLIDING_INSTANCE, colliding_book_with(action, old, new))

    assert [p.removesuffix(", which it does not rule out") for p in problems] == expected


def test_a_truth_named_only_as_an_outcome_is_never_named():
    instance = Instance(
        truths=("Arrhythmia", "Myocardial Infarction", "Stable Angina"),
        actions=(ECG,),
        observations={ECG: "ischemic_changes"},
        valid_truths=("Arrhythmia",),
        seed=0,
    )
    ecg = (
        "**Electrocardiogram (ECG).** A normal tracing excludes Myocardial Infarction and Stable "
        "Angina. An arrhythmia on the tracing rules out Stable Angina. Ischemic changes rule out "
        "nothing.\n"
    )

    problems = check_book(COLLIDING, instance, "Candidates: Myocardial Infarction.\n\n" + ecg)
    # Naming it as a candidate is enough.
    named = "Candidates: Myocardial Infarction, Arrhythmia.\n\n" + ecg

    assert problems == ["truth 'Arrhythmia' is never named"]
    assert check_book(COLLIDING, instance, named) == []


# -- properties over generated domains and instances ---------------------------------------


@st.composite
def with_colliding_labels(draw: st.DrawFn, domain: Domain) -> Domain:
    """``domain`` with some outcome labels renamed to names of its truths, in the same case
    or another (an outcome 'TRUTH-3' and a truth 'truth-3'), as in the original KUMO data."""
    actions = []
    for action in domain.actions:
        if action.type != "str":
            actions.append(action)
            continue
        states, used = [], set()
        for state in action.states:
            label = state.label
            if draw(st.booleans()):
                truth = draw(st.sampled_from(domain.truths))
                if truth.casefold() not in used:
                    label = draw(st.sampled_from([truth, truth.upper(), truth.capitalize()]))
            used.add(label.casefold())
            states.append(replace(state, label=label))
        actions.append(replace(action, states=tuple(states)))
    return replace(domain, actions=tuple(actions))


@st.composite
def tasks(draw: st.DrawFn, *, colliding: bool | None = None) -> tuple[Domain, Instance]:
    """A domain and an instance of it; outcome labels are sometimes (always if
    ``colliding``) also names of truths."""
    domain = draw(domains())
    if colliding or (colliding is None and draw(st.booleans())):
        domain = draw(with_colliding_labels(domain))
    n_truths = draw(st.integers(2, len(domain.truths)))
    n_actions = draw(st.integers(1, len(domain.actions)))
    try:
        instance = generate_instance(domain, n_truths, n_actions, seed=draw(st.integers(0, 999)))
    except GenerationError:
        assume(False)
    return domain, instance


PROPERTY = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def ruled_out_lines(domain: Domain, instance: Instance, book: str) -> list[tuple[str, str, str]]:
    """(action, outcome line, rule-out list) for every outcome line that rules something out."""
    found = []
    for name in instance.actions:
        for line in section(book, name).splitlines():
            match = re.match(r"- If the result is .*: rule out (.*)\.$", line)
            if match:
                found.append((name, line, match.group(1)))
    return found


@PROPERTY
@given(tasks())
def test_every_written_book_passes_the_check(task):
    domain, instance = task

    assert check_book(domain, instance, write_book(domain, instance)) == []


@PROPERTY
@given(tasks(), st.randoms(use_true_random=False))
def test_the_check_notices_a_ruled_out_truth_deleted_from_an_outcome(task, rng: random.Random):
    domain, instance = task
    book = write_book(domain, instance)
    lines = ruled_out_lines(domain, instance, book)
    assume(lines)
    action, line, listed = rng.choice(lines)
    truths = listed.split(", ")  # generated names contain no commas
    assert set(truths) <= set(instance.truths)
    dropped = rng.choice(truths)
    shorter = line.replace(
        ": rule out " + listed, ": rule out " + ", ".join(t for t in truths if t != dropped)
    )
    old = section(book, action)

    problems = check_book(domain, instance, book.replace(old, old.replace(line, shorter)))

    assert any(f"'{action}'" in p and f"'{dropped}'" in p for p in problems), problems


@PROPERTY
@given(tasks(), st.randoms(use_true_random=False))
def test_the_check_notices_a_rule_out_turned_into_a_confirmation(task, rng: random.Random):
    domain, instance = task
    book = write_book(domain, instance)
    lines = ruled_out_lines(domain, instance, book)
    assume(lines)
    action, line, _listed = rng.choice(lines)
    old = section(book, action)
    new = old.replace(line, line.replace("rule out", "confirms"))

    problems = check_book(domain, instance, book.replace(old, new))

    assert any(p.startswith("states a confirmation") for p in problems), problems


def outcome_lines(domain: Domain, instance: Instance, book: str) -> list[tuple[str, State, str]]:
    """(action, state, line) for every outcome line of every action of the task."""
    found = []
    for name in instance.actions:
        action = domain.action(name)
        lines = [line for line in section(book, name).splitlines() if line.startswith("- If ")]
        states = action.states
        if action.type == "float":
            states = tuple(sorted(states, key=lambda state: state.range))
        found += [(name, state, line) for state, line in zip(states, lines, strict=True)]
    return found


@PROPERTY
@given(tasks(colliding=True))
def test_every_written_book_passes_the_check_when_outcomes_are_named_like_truths(task):
    domain, instance = task

    assert check_book(domain, instance, write_book(domain, instance)) == []


@PROPERTY
@given(tasks(), st.randoms(use_true_random=False))
def test_the_check_notices_a_missing_outcome(task, rng: random.Random):
    domain, instance = task
    book = write_book(domain, instance)
    # Ranges are left out: touching ranges share endpoints, so a missing one can still look
    # given by its neighbours' numbers.
    lines = [item for item in outcome_lines(domain, instance, book) if item[1].label is not None]
    assume(lines)
    action, state, line = rng.choice(lines)
    old = section(book, action)

    problems = check_book(domain, instance, book.replace(old, old.replace(line + "\n", "")))

    assert (
        f"outcome '{state.label}' of '{action}' is not given in the part of the book on "
        f"'{action}'" in problems
    ), problems


@PROPERTY
@given(tasks(), st.randoms(use_true_random=False))
def test_the_check_notices_a_wrong_rule_out(task, rng: random.Random):
    domain, instance = task
    book = write_book(domain, instance)
    action, state, line = rng.choice(outcome_lines(domain, instance, book))
    wrong = sorted(set(instance.truths) - state.rules_out)
    assume(wrong)
    truth = rng.choice(wrong)
    head, verdict = line.rsplit(": ", 1)
    if verdict.startswith("rule out "):
        verdict = verdict.removesuffix(".") + f", {truth}."
    else:
        verdict = f"rule out {truth}."
    old = section(book, action)

    problems = check_book(
        domain, instance, book.replace(old, old.replace(line, f"{head}: {verdict}"))
    )

    assert any(
        f"of '{action}' is said to rule out '{truth}', which it does not rule out" in p
        for p in problems
    ), problems


@PROPERTY
@given(tasks(), st.randoms(use_true_random=False))
def test_the_check_notices_a_missing_action(task, rng: random.Random):
    domain, instance = task
    book = write_book(domain, instance)
    action = rng.choice(instance.actions)
    cut = book.replace(f"### {action}\n" + section(book, action), "")

    assert f"action '{action}' is never named" in check_book(domain, instance, cut)


@PROPERTY
@given(tasks(), st.randoms(use_true_random=False))
def test_the_book_is_the_same_whatever_the_answer_and_observations(task, rng: random.Random):
    domain, instance = task
    truths, actions = list(instance.truths), list(instance.actions)
    rng.shuffle(truths)
    rng.shuffle(actions)
    observations = {}
    for name in actions:
        state = rng.choice(domain.action(name).states)
        observations[name] = state.label if state.label is not None else state.range[0]
    other = Instance(
        truths=tuple(truths),
        actions=tuple(actions),
        observations=observations,
        valid_truths=(rng.choice(truths),),
        seed=instance.seed + 1,
    )

    assert write_book(domain, other) == write_book(domain, instance)


SHIPPED = sorted((Path(__file__).resolve().parents[2] / "engine" / "domains").glob("*.json"))


@pytest.mark.parametrize("path", SHIPPED, ids=[path.stem for path in SHIPPED])
def test_books_for_the_shipped_domains_pass_the_check(path: Path):
    domain = domain_from_json(path.read_text(encoding="utf-8"))
    for n_truths, n_actions in ((4, 6), (12, 16)):
        for seed in range(3):
            instance = generate_instance(domain, n_truths, n_actions, seed)
            assert check_book(domain, instance, write_book(domain, instance)) == []
