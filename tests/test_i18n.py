"""The languages' catalogs (lab/i18n): complete, with the source's placeholders and each language's plural rule,
compiled by the set-up or read from the .po, the glossary's one word per concept, the pseudo-language, and which
language a page speaks (a link's refused by name when unknown)."""

import re
import shutil
import tomllib
from pathlib import Path

import pytest
from babel import Locale
from babel.messages.pofile import read_po

import lab.i18n as i18n
from lab.i18n import LANGUAGES, PSEUDO, LanguageInputError, language_for, language_from_link, language_of_browser
from lab.i18n import compile as compiler
from lab.i18n.catalogs_check import placeholder_problems

TRANSLATED = [lang for lang in LANGUAGES.values() if lang.code != "en"]


def catalog(language):
    path = i18n.CATALOGS / language.locale / "LC_MESSAGES" / "lab.po"
    with path.open("rb") as handle:
        return read_po(handle, locale=language.locale)


def template():
    with i18n.TEMPLATE.open("rb") as handle:
        return read_po(handle)


@pytest.mark.parametrize("language", TRANSLATED, ids=[lang.code for lang in TRANSLATED])
def test_every_language_has_every_message_of_the_template_translated_with_its_placeholders(language):
    wanted = {m.id for m in template() if m.id}
    po = catalog(language)
    have = {m.id for m in po if m.id}
    assert have == wanted, (sorted(wanted - have), sorted(have - wanted))
    untranslated = [m.id for m in po if m.id and (not m.string or m.fuzzy or (isinstance(m.string, tuple)
                                                                              and not all(m.string)))]
    assert not untranslated, untranslated
    assert not placeholder_problems(po)


@pytest.mark.parametrize("language", TRANSLATED, ids=[lang.code for lang in TRANSLATED])
def test_every_catalog_states_its_language_s_own_plural_rule(language):
    forms = len(Locale.parse(language.locale).plural_form.tags) + 1  # CLDR's categories and "other"
    header = catalog(language).plural_forms
    assert header.startswith(f"nplurals={forms};"), header
    # by hand: Arabic zero/one/two/few/many/other, Chinese one form, German one/other
    assert {"ar": 6, "zh_Hans": 1, "de": 2}.get(language.locale, forms) == forms


def test_the_set_up_compiles_every_catalog_and_texts_read_the_compiled_words(tmp_path, monkeypatch):
    assert compiler.main([]) == 0 and compiler.main(["--check"]) == 0
    i18n.texts.cache_clear()
    assert i18n.texts("de")("Glossary") == "Glossar"
    assert i18n.texts("ar")("Start here") == "ابدأ من هنا"
    assert i18n.texts("en")("Glossary") == "Glossary"  # the source language is the messages themselves


def test_a_catalog_changed_since_its_compilation_is_read_from_the_po_and_the_check_names_it(tmp_path, monkeypatch):
    copy = tmp_path / "catalogs"
    shutil.copytree(i18n.CATALOGS, copy)
    monkeypatch.setattr(i18n, "CATALOGS", copy)
    monkeypatch.setattr(compiler, "CATALOGS", copy)
    po = copy / "fr" / "LC_MESSAGES" / "lab.po"
    (copy / "fr" / "LC_MESSAGES" / "lab.mo").unlink(missing_ok=True)
    po.write_text(po.read_text(encoding="utf-8").replace('msgstr "Glossaire"', 'msgstr "Lexique"'), encoding="utf-8")
    i18n.texts.cache_clear()
    try:
        assert i18n.texts("fr")("Glossary") == "Lexique"  # no compiled file: the .po itself
        assert compiler.main(["--check"]) == 1
    finally:
        i18n.texts.cache_clear()


def test_a_translation_that_drops_or_invents_a_placeholder_is_refused_by_the_compilation(tmp_path, monkeypatch):
    from babel.messages.catalog import Catalog

    made = Catalog(locale="de")
    made.add("{count} of {total} answered", "{count} beantwortet")
    made.add("{name} joined", "{nom} ist da")
    problems = placeholder_problems(made)
    assert len(problems) == 2 and "drops ['total']" in problems[0] and "names ['nom']" in problems[1]


def test_arabic_plurals_follow_its_six_forms(tmp_path, monkeypatch):
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import write_po

    folder = tmp_path / "ar" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    made = Catalog(locale="ar")
    made.add(("{count} student", "{count} students"), tuple(f"form{i} {{count}}" for i in range(6)))
    with (folder / "lab.po").open("wb") as handle:
        write_po(handle, made)
    monkeypatch.setattr(i18n, "CATALOGS", tmp_path)
    i18n.texts.cache_clear()
    try:
        say = i18n.texts("ar")
        # CLDR: zero 0, one 1, two 2, few 3..10, many 11..99 (mod 100), other the rest (100, 102)
        got = {n: say.ngettext("{count} student", "{count} students", n, count=n) for n in (0, 1, 2, 3, 11, 100)}
        assert got == {0: "form0 0", 1: "form1 1", 2: "form2 2", 3: "form3 3", 11: "form4 11", 100: "form5 100"}
    finally:
        i18n.texts.cache_clear()


def test_the_glossary_keeps_one_word_per_concept_in_every_catalog():
    glossary = tomllib.loads((Path(i18n.__file__).parent / "glossary.toml").read_text(encoding="utf-8"))
    assert {"target", "draft", "residual", "acceptance", "rejection", "reveal", "class-code"} <= set(glossary)
    offenders = []
    for language in TRANSLATED:
        for message in catalog(language):
            if not message.id:
                continue
            source = message.id if isinstance(message.id, str) else message.id[0]
            source = re.sub(r"\{[A-Za-z_]\w*\}", "", source)  # a placeholder's name ({token}) is no word
            source = re.sub(r"\b[a-z]+(?:-[a-z]+)+\b", "", source)  # nor a rule's name (unprocessed-draft)
            strings = message.string if isinstance(message.string, tuple) else (message.string,)
            for term, words in glossary.items():
                assert language.code in words, f"the glossary has no {language.code} word for {term}"
                if re.search(rf"\b({words['en']})\b", source, re.I) is None:
                    continue
                for text in strings:
                    if not any(form.lower() in text.lower() for form in words[language.code]):
                        offenders.append(f"{language.code}: {source!r} -> {text!r} lacks {term}")
    assert not offenders, offenders


def test_the_pseudo_language_marks_every_message_and_keeps_placeholders():
    say = i18n.texts(PSEUDO)
    assert say("Glossary") == "[Ĝĺóššàŕý]"
    assert i18n.pseudo("{count} of {total} answered") == "[{count} óƒ {total} àñšŵéŕéđ]"
    assert say("a text no catalog has") == "a text no catalog has"  # what a test of the pages will catch


@pytest.mark.parametrize(("value", "code"), [("de", "de"), ("pt-BR", "pt-BR"), ("pt_br", "pt-BR"),
                                             ("ZH-hans", "zh-Hans"), (" ar ", "ar")])
def test_a_link_s_language_is_read_forgiving_case_and_underscore(value, code):
    assert language_from_link(value) == code
    assert language_for(value, "fr-FR") == code  # the link wins over the browser


@pytest.mark.parametrize("value", ["xx", "english", "", "de-DE", "x" * 1_000_000])
def test_an_unknown_language_in_a_link_is_refused_by_name_in_a_short_message(value):
    with pytest.raises(LanguageInputError) as error:
        language_for(value, "de")
    message = str(error.value)
    assert message.startswith("lang: ") and "en, es, de, fr, pt-BR, zh-Hans, ar" in message and len(message) < 160


@pytest.mark.parametrize(("locale", "code"), [("de-AT", "de"), ("de", "de"), ("pt", "pt-BR"), ("pt-PT", "pt-BR"),
                                              ("zh-CN", "zh-Hans"), ("zh", "zh-Hans"), ("zh-TW", None),
                                              ("zh-Hant-HK", None), ("ar-EG", "ar"), ("es-419", "es"), ("ja", None),
                                              (None, None), ("", None), ("x" * 100, None)])
def test_the_browser_s_language_is_matched_by_language(locale, code):
    assert language_of_browser(locale) == code
    assert language_for(None, locale) == (code or "en")


def test_the_template_has_every_message_the_code_marks(tmp_path, monkeypatch):
    """A message added or changed in the code without `python -m lab.i18n.update` fails here."""
    from lab.i18n.update import ROOT, extract

    monkeypatch.chdir(ROOT)
    fresh = tmp_path / "lab.pot"
    extract(fresh)
    with fresh.open("rb") as handle:
        marked = {m.id for m in read_po(handle) if m.id}
    assert marked == {m.id for m in template() if m.id}
    assert {"Start here", "Residual explorer", "Teaching a class"} <= marked


MARKING_CALLS = {"_", "N_", "said", "ngettext"}  # _("…"), N_("…"), said("…"), _.ngettext("…", "…", n)


def marked_literals(path: Path):
    """(line, message) of every literal message a marking call in ``path`` passes, read from the syntax tree (apart
    from Babel's extractor)."""
    import ast

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else (
            func.attr if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "_"
            else None
        )
        inner = func.func if isinstance(func, ast.Call) else None
        if (isinstance(inner, ast.Name) and inner.id == "texts") or (
            isinstance(inner, ast.Attribute) and inner.attr == "texts"
        ):
            name = "_"  # texts()("…") or language.texts()("…"): a message Babel's extractor does not see either
        first = node.args[0]
        if name in MARKING_CALLS and isinstance(first, ast.Constant) and isinstance(first.value, str):
            yield node.lineno, first.value


def test_every_message_a_marking_call_passes_is_in_the_template():
    """Babel's extractor skips a message written inside another message's call (``_("{a}: {b}", b=_("…"))``) and one
    passed straight to ``texts()("…")``: such a message is never translated, and the pseudo-language cannot show it
    (it lies inside the outer message's brackets, or reads as itself). Every literal message is made before the
    sentence it goes in, with ``_ = texts()``."""
    from lab.i18n.update import ROOT

    known = {m.id if isinstance(m.id, str) else m.id[0] for m in template() if m.id}
    files = [ROOT / "app.py", *sorted((ROOT / "lab").rglob("*.py"))]
    missing = [f"{path.relative_to(ROOT)}:{line}: {message[:60]}" for path in files
               for line, message in marked_literals(path) if message not in known]
    assert not missing, missing
    assert len(known) > 700


def test_every_bold_span_in_a_translation_closes():
    """CommonMark closes ``**`` after a punctuation mark only before a space or another mark: "**原因：**{why}" shows
    its asterisks (a placeholder is replaced by a word). A translation keeps such a mark outside the span."""
    import unicodedata

    offenders = []
    for language in TRANSLATED:
        for message in catalog(language):
            strings = message.string if isinstance(message.string, tuple) else (message.string,)
            for text in strings:
                for span in re.finditer(r"\*\*([^*]+?)\*\*(.?)", text or ""):
                    inner, after = span.group(1), span.group(2)
                    closes = not (unicodedata.category(inner[-1]).startswith("P") and after and not after.isspace()
                                  and (after == "{" or not unicodedata.category(after).startswith("P")))
                    if not closes:
                        offenders.append(f"{language.code}: {text[:80]!r}")
    assert not offenders, offenders
