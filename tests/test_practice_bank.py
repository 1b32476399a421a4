"""The practice bank as content: size, coverage, stable ids, and the tells that would let a
student answer without knowing the rule (build/content/banktells.py). Runs in CI; prints the report."""

from __future__ import annotations

import pytest
from support import SITE_SRC

from citavial.build.content.banktells import Tell, report, specificity, tells
from citavial.build.content.practice import TOPICS, Question, read_bank
from citavial.build.models import Citation

PRACTICE = SITE_SRC / "practice"


@pytest.fixture(scope="module")
def bank():
    return read_bank(PRACTICE)


def test_bank_size_and_coverage(bank):
    assert len(bank) >= 300
    per_topic = {t: sum(q.topic == t for q in bank) for t in TOPICS}
    assert min(per_topic.values()) >= 20, per_topic


def test_bank_has_no_tells(bank, capsys):
    with capsys.disabled():
        print("\n" + report(bank))
    over = [str(t) for t in tells(bank) if not t.ok]
    assert not over, over


def test_published_ids_are_never_removed(bank):
    """Ids are permalinks: every id ever published still exists, and every id is published."""
    published = (PRACTICE / "published-ids.lst").read_text(encoding="utf-8").split()
    ids = {q.id for q in bank}
    assert sorted(published) == sorted(set(published)), "published-ids.lst repeats an id"
    assert not set(published) - ids, f"published ids gone: {sorted(set(published) - ids)}"
    assert not ids - set(published), ("add the new ids to site_src/practice/published-ids.lst: "
                                      f"{sorted(ids - set(published))}")


def _q(options: tuple[str, str, str], correct: int) -> Question:
    return Question("t-001", "velocidad", "¿…?", options, correct, "…",
                    Citation("f", 1, "RD-1428/2003#art48", "x", ""))


@pytest.mark.parametrize("options, correct, name, shows", [
    pytest.param(("Sí, con precaución y cediendo el paso al que viene.", "No.", "A veces."), 0,
                 "correct option is the longest", True, id="longest-true"),
    pytest.param(("Sí.", "No, nunca, en ninguna circunstancia.", "A veces."), 0,
                 "correct option is the longest", False, id="longest-false"),
    pytest.param(("A 50 km/h.", "Despacio.", "Deprisa."), 0,
                 "correct option is the shortest", False, id="shortest-false"),
    pytest.param(("Rápido.", "Despacio y atento.", "Deprisa y sin mirar."), 0,
                 "correct option is the shortest", True, id="shortest-true"),
])
def test_tell_table(options, correct, name, shows):
    tell = next(t for t in tells([_q(options, correct)]) if t.name == name)
    assert tell.k == int(shows)


@pytest.mark.parametrize("options, correct, k, n", [
    pytest.param(("Nunca.", "Sí, por el arcén.", "Siempre."), 1, 0, 2, id="absolutes-always-wrong"),
    pytest.param(("En ningún caso.", "Sí, por el arcén.", "Siempre."), 0, 1, 2,
                 id="absolute-correct"),
    pytest.param(("Siempre que pueda.", "Sí.", "No."), 1, 0, 0, id="siempre-que-is-not-absolute"),
])
def test_absolute_tell(options, correct, k, n):
    tell = next(t for t in tells([_q(options, correct)]) if t.name.startswith("options with"))
    assert (tell.k, tell.n) == (k, n)


@pytest.mark.parametrize("options, correct, k, n", [
    pytest.param(("A 50 km/h.", "Despacio.", "Deprisa."), 0, 1, 1, id="only-number-correct"),
    pytest.param(("A 50 km/h.", "Despacio.", "Deprisa."), 1, 0, 1, id="only-number-wrong"),
    pytest.param(("A 50 km/h.", "A 30 km/h.", "Deprisa."), 0, 0, 0, id="two-numbers"),
])
def test_only_number_tell(options, correct, k, n):
    tell = next(t for t in tells([_q(options, correct)]) if t.name.startswith("only option with a n"))
    assert (tell.k, tell.n) == (k, n)


@pytest.mark.parametrize("option, more_than", [
    pytest.param("Sí, salvo que una señal lo prohíba.", "Sí, por el arcén.", id="qualifier"),
    pytest.param("Sí, si lleva casco.", "Sí, lleva casco.", id="si-conditional"),
])
def test_specificity(option, more_than):
    assert specificity(option) > specificity(more_than)


def test_qualifier_ignores_the_answer_word_si():
    from citavial.build import patterns as P
    assert not P.OPTION_QUALIFIER.search("si, por el arcen.")
    assert P.OPTION_QUALIFIER.search("si, si lleva casco").group(1) == "si"
    assert P.OPTION_ABSOLUTE.search("no, nunca.").group(1) == "nunca"
    assert not P.OPTION_ABSOLUTE.search("siempre que pueda")


def test_tell_limits_are_enforced():
    assert not Tell("x", 41, 100, 0.20, 0.40).ok
    assert Tell("x", 40, 100, 0.20, 0.40).ok
    assert not Tell("x", 19, 100, 0.20, 0.40).ok
