"""Start here: the lesson, one chapter at a time (the app's landing page). A thin view: the chapters' words, numbers
and checks are lab.teaching.lesson's, the student's progress is lab.models.lesson's; each chapter's interactive is
drawn by lab.views.lesson.chapters.

A chapter: its text, a prediction (boxes, then Reveal), its interactive, a check-yourself question, then Back /
Next and a link to the tool page. ``?chapter=3`` opens a chapter; the progress is kept in this browser
(lab.views.ui.browser_memory) and comes back after a reload or a restart of the server."""

from __future__ import annotations

import streamlit as st

from lab.core.formatting import markdown_escape
from lab.core.numbers import shown
from lab.i18n import N_
from lab.models.lesson import Lesson, LessonInputError, parse_chapter
from lab.teaching.lesson import CHAPTER_COUNT, Chapter, chapters
from lab.teaching.lesson import chapter as chapter_in
from lab.views.lesson import chapters as interactives
from lab.views.live_class.class_memory import back_to_class
from lab.views.shell import page_named
from lab.views.ui import language
from lab.views.ui.accessibility import announce, section, subsection, title
from lab.views.ui.browser_memory import browser_memory

STORE = "ls_lesson"  # the session's Lesson
SAID = "ls_said"  # what the last action showed, for the live region: (message, error, focus)
LINK_SEEN = "ls_link_chapter"  # the link's chapter this session has followed
MEMORY_NAME = "residual-lab-lesson"
MEMORY_PROBLEM = "ls_memory_problem"
FORGET = "ls_forget"  # Start over: the browser's copy is removed in the next run
PREDICT_HEADING = N_("Predict first")
FROM_LINK = "ls_from_link"  # this session opened the chapter its link named

IDEA = N_(
    "**Speculative sampling** makes a large language model write faster without changing what it writes. A small, "
    "fast *draft* model guesses the next word, and the large *target* model checks the guess. A rejected guess is "
    "replaced by a draw from the *residual*, the part of the target's probabilities the guesses miss, so the output "
    "follows the target exactly."
)


def chapter(number: int) -> Chapter:
    """Chapter ``number`` in the page's language."""
    return chapter_in(number, language.page_code())


def lesson() -> Lesson:
    if STORE not in st.session_state:
        st.session_state[STORE] = Lesson()
    return st.session_state[STORE]


def say(message: str = "", error: str = "", focus: str = "") -> None:
    st.session_state[SAID] = (message, error, focus)


def follow_link(state: Lesson) -> None:
    """``?chapter=N`` opens chapter N (once per value: afterwards Next and Back write it); a bad value is named."""
    raw = st.query_params.get("chapter")
    if raw is None or raw == st.session_state.get(LINK_SEEN):
        return
    st.session_state[LINK_SEEN] = raw
    try:
        state.go(parse_chapter(raw))
        st.session_state[FROM_LINK] = True  # the browser's saved place does not override the link's chapter
    except LessonInputError:
        _ = language.texts()
        st.warning(markdown_escape(_(
            "chapter: {value} is not a chapter number from 1 to {count}: the lesson opens at your last chapter.",
            value=shown(raw), count=CHAPTER_COUNT,
        )), icon=":material/link_off:")
        del st.query_params["chapter"]


def write_link(state: Lesson) -> None:
    wanted = str(state.current)
    if st.query_params.get("chapter") != wanted:
        st.query_params["chapter"] = wanted
    st.session_state[LINK_SEEN] = wanted


def stored_arrived(text: str) -> None:
    """The browser's saved lesson (a callback, before the run): merged into this session's, after checking it."""
    if not text:
        return
    try:
        saved = Lesson.from_text(text)
    except LessonInputError as exc:
        _ = language.texts()
        st.session_state[MEMORY_PROBLEM] = _(
            "Your saved progress could not be used ({problem}); the lesson starts fresh.", problem=str(exc))
        return
    state = lesson()
    fresh = state.blank
    state.merge(saved)
    if fresh and not st.session_state.get(FROM_LINK):
        state.go(saved.current)


def move(to: int) -> None:
    state = lesson()
    state.go(to)
    say(focus=chapter(state.current).name)


def start_over() -> None:
    st.session_state[STORE] = Lesson()
    st.session_state[FORGET] = True
    for key in [k for k in st.session_state if str(k).startswith("ls_")]:
        if key not in (STORE, FORGET, LINK_SEEN):
            del st.session_state[key]
    _ = language.texts()
    say(_("Your progress is cleared: the lesson starts again at chapter 1."), focus=chapter(1).name)


def progress_marker(state: Lesson) -> None:
    _ = language.texts()
    done = state.done
    st.progress(len(done) / CHAPTER_COUNT, text=_("Chapter {current} of {count} · {done} of {count} chapters done",
                                                  current=state.current, count=CHAPTER_COUNT, done=len(done)))
    with st.expander(_("All chapters"), key="ls_all_chapters"):
        for item in chapters(language.page_code()):
            mark = _("✓ done") if item.number in done else (_("open now") if item.number == state.current else "")
            cols = st.columns([5, 1], vertical_alignment="center")
            cols[0].markdown(f"{item.number}. {markdown_escape(item.title)}" + (f" — *{mark}*" if mark else ""))
            if item.number != state.current:
                cols[1].button(_("Open"), key=f"ls_open_{item.number}", on_click=move, args=(item.number,),
                               help=_("Open {chapter}", chapter=item.name))
        st.button(_("Start over"), key="ls_start_over", on_click=start_over,
                  help=_("Clear every prediction and answer of this lesson, in this browser too"))


def prediction(item: Chapter, state: Lesson) -> None:
    """The chapter's prediction: its boxes and Reveal, then each box beside the exact value."""
    _ = language.texts()
    work = state.of(item.number)
    subsection(_(PREDICT_HEADING))
    st.markdown(markdown_escape(item.predict))
    keys = [f"ls_{item.number}_pred_{i}" for i in range(len(item.asks))]
    if work.revealed:
        interactives.graded_table(item, work.predictions)
        for line in item.revealed:
            st.markdown(language.keep_language_in_links(line))
        return
    if item.interactive == "worked":
        texts = interactives.bar_prediction(item, keys, work)
    else:
        for key, saved in zip(keys, work.predictions):
            st.session_state.setdefault(key, saved)
        cols = st.columns(min(len(item.asks), 4))
        for i, (ask, key) in enumerate(zip(item.asks, keys)):
            cols[i % len(cols)].text_input(markdown_escape(ask.label), key=key, max_chars=40,
                                           placeholder=_("e.g. 3/4"))
        texts = [str(st.session_state.get(key) or "")[:40] for key in keys]
    if st.button(_("Reveal"), key=f"ls_{item.number}_reveal", type="primary"):
        state.reveal(item.number, texts)
        # the button goes with the boxes: focus moves to this part's heading, not to the page's body
        say(_("Revealed: {what}", what=" ".join(interactives.plain(line) for line in item.revealed)),
            focus=_(PREDICT_HEADING))
        st.rerun()


def check(number: int) -> None:
    """Check's callback (before the run, so the progress marker above the question already counts it)."""
    key = f"ls_{number}_answer"
    text = str(st.session_state.get(key) or "")[:40]
    verdict = lesson().answer(number, text, language.page_code())
    st.session_state[f"ls_{number}_verdict"] = text  # the verdict is said again in the page's language of each run
    say(verdict.message if verdict.correct else "", "" if verdict.correct else verdict.message)


def question(item: Chapter, state: Lesson) -> None:
    _ = language.texts()
    work = state.of(item.number)
    subsection(_("Check yourself"))
    st.markdown(markdown_escape(item.question.prompt))
    key = f"ls_{item.number}_answer"
    st.session_state.setdefault(key, work.answer)
    with st.container(horizontal=True, vertical_alignment="bottom"):
        # never disabled once right: a control that disables itself drops keyboard focus to the page's body
        st.text_input(_("Your answer"), key=key, max_chars=40, placeholder=_("a fraction like 3/4, or a decimal"))
        st.button(_("Check"), key=f"ls_{item.number}_check", on_click=check, args=(item.number,))
    checked = st.session_state.get(f"ls_{item.number}_verdict")
    verdict = item.question.check(checked) if isinstance(checked, str) else None  # checking counts no try
    if work.correct:
        st.success(markdown_escape(_("Right: {solution} Chapter done.", solution=item.question.solution)),
                   icon=":material/check:")
    elif verdict is not None:
        (st.warning if verdict.counted else st.error)(markdown_escape(verdict.message))
    if not work.correct and work.solution_shown:
        st.info(markdown_escape(_("The worked answer (after two tries): {solution}",
                                  solution=item.question.solution)))


def footer(item: Chapter, state: Lesson) -> None:
    _ = language.texts()
    path, words = item.tool
    tool = page_named(path)
    st.markdown(_("**Go further**: {where}.", where=words))
    st.page_link(tool.file, label=_("Open {page}", page=_(tool.title)), icon=":material/arrow_outward:")
    with st.container(horizontal=True, horizontal_alignment="distribute"):
        if item.number > 1:
            st.button(_("← Back"), key="ls_back", on_click=move, args=(item.number - 1,))
        if item.number < CHAPTER_COUNT:
            st.button(_("Next →"), key="ls_next", on_click=move, args=(item.number + 1,), type="primary")
        else:
            st.markdown(_("**The end of the path.** The tools in the menu go further."))


def main() -> None:
    _ = language.texts()
    state = lesson()
    title(_("Start here"))
    back_to_class()  # a phone that joined a class and opened the app's root: the way back to it
    follow_link(state)
    if problem := st.session_state.pop(MEMORY_PROBLEM, ""):
        st.warning(markdown_escape(problem))
    item = chapter(state.current)
    if item.number == 1:
        st.markdown(_(IDEA))  # the whole idea, before the path; later chapters build on it
    progress_marker(state)
    section(item.name)
    for paragraph in item.text:
        st.markdown(language.keep_language_in_links(paragraph))
    left, right = st.columns(2, gap="large")  # the chart to read beside the boxes to fill (a phone stacks them)
    with left:
        interactives.before(item, state.of(item.number))
    with right:
        prediction(item, state)
    if state.of(item.number).revealed:
        interactives.after(item, state.of(item.number))
    st.divider()
    question(item, state)
    st.divider()
    footer(item, state)
    write_link(state)
    forget = st.session_state.pop(FORGET, False)
    # a blank lesson is not written: a browser with nothing saved loads the page in one run
    browser_memory(MEMORY_NAME, "" if forget else None if state.blank else state.to_text(), stored_arrived)
    message, error, focus = st.session_state.pop(SAID, ("", "", ""))
    announce("ls", message, error=error, focus=focus)


main()
