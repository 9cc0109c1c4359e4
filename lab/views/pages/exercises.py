"""Exercises: seeded problems with feedback, hints and worked solutions; predict the bars; the teacher's
assignment link with a QR code; downloads. A thin view: every number comes from
lab.teaching.exercises / lab.teaching.exports.
The answer keys and the presenter's Reveal buttons are the teacher's: they open only with a teacher link (the
assignment link plus a token derived from the server's secret, made for a seed drawn at random); a student's
assignment link shows the problems, hints, the worked solution after two tries and their own results.
Attempts are kept in this browser's localStorage (lab.views.ui.browser_memory: a reload brings them back), and on
the server only after the student asks for a resume link (lab.views.pages.study_resume: the id in the link brings
them back on another device too).

Each tab is a function of the session's :class:`lab.models.exercises.Sheet` (the assignment and what this student
did with it, and the methods that change it), with a short main at the bottom."""

from __future__ import annotations

import re
import secrets

import streamlit as st

from lab.classroom.secret import SecretError, server_secret
from lab.core.errors import said, said_of
from lab.core.formatting import fraction_text, markdown_escape, markdown_table
from lab.i18n import LANGUAGES, N_, PSEUDO
from lab.i18n import texts as catalog_texts
from lab.models.bars import BAR_STEP
from lab.models.exercises import TABS, ExercisesModel, Sheet, attempts_from_text, attempts_text
from lab.teaching.exercises import (
    BRANCH_NAMES,
    BRANCH_OPTIONS,
    HINT_STEPS,
    LEVEL_TITLES,
    MAX_SEED,
    Attempt,
    ExerciseInputError,
    Problem,
    hints,
    running_score,
    score_prediction,
    worked_solution,
)
from lab.teaching.exports import (
    EXERCISES_URL_PATH,
    TEACHER_PARAM,
    assignment_url,
    check_base_url,
    is_teacher_token,
    results_csv,
    teacher_token,
    teacher_url,
)
from lab.views.live_class.assignment_form import ASSIGNMENT, assignment_fields, start_from
from lab.views.live_class.join_link import no_address_warning, student_address
from lab.views.live_class.once_per_server import assignment_downloads, pq_table, qr_image, shared_assignment
from lab.views.pages import study_resume
from lab.views.ui.accessibility import announce, section, title
from lab.views.ui.answers import typed_answer
from lab.views.ui.bar_predictor import bar_predictor
from lab.views.ui.browser_memory import browser_memory
from lab.views.ui.charts import chart, figure, show_feedback
from lab.views.ui.controls import Widgets
from lab.views.ui.language import decimal_comma, exact_and_decimal, number, page_code, right_to_left, say, texts
from lab.views.ui.page_state import kept_in_session, refuse_link_values, show_link_warnings
from lab.views.ui.presentation import is_presenting

BARS_TAB_KEY = "exq_bars_exercise"  # the open predict-the-bars exercise
KEPT_WIDGET_PREFIXES = ("exq_bar_", "exq_base_url", BARS_TAB_KEY)  # values of widgets in tabs that may be closed


WIDGETS = Widgets(ExercisesModel, start=False)  # each control's key (the link's parameter), declared in the model
SAID = "exq_said"  # what the last Check, Hint or Reveal showed: (said, refused), for the page's live region


def open_sheet(assignment: ExercisesModel) -> Sheet:
    seed, count, level = assignment.seed, assignment.count, assignment.level
    problems, predictions = (list(part) for part in shared_assignment(seed, count, level))  # once for the class
    link_token = str(st.query_params.get(TEACHER_PARAM, ""))[:100]
    secret = _secret() if link_token else None
    sheet = Sheet(
        seed,
        count,
        level,
        problems,
        predictions,
        is_presenting(),
        secret is not None and is_teacher_token(secret, seed, link_token),
        link_token,
    )
    sheet.attempts = kept_in_session("exq_attempts", dict).setdefault(sheet.key, {})
    sheet.feedback = kept_in_session("exq_feedback", dict).setdefault(sheet.key, {})
    sheet.revealed = kept_in_session("exq_revealed", dict).setdefault(sheet.key, set())
    sheet.checked_bars = kept_in_session("exq_bars", dict).setdefault(sheet.key, {})
    return sheet


def intro() -> None:
    _ = texts()
    title(_("Exercises"))
    st.caption(_(
        "Compute α, Z, r and the reconstruction for small distributions. Fractions must be exact; decimals count "
        "within {tolerance}. A worked solution opens after two tries. Your answers are kept in this browser, also "
        "after a reload; a resume link (Your results tab) keeps them on the server too, to go on from another "
        "device.", tolerance=number(0.005),
    ))


def keep_closed_tabs_values() -> None:
    """A widget that is not drawn in a run loses its value, and only the open tab is drawn: the values kept in the
    other tabs are carried over (Streamlit's way: a widget's value assigned to its key)."""
    for key in [k for k in st.session_state if str(k).startswith(KEPT_WIDGET_PREFIXES)]:
        st.session_state[key] = st.session_state[key]


def _write_assignment() -> None:
    """The Teacher tab's seed, count and level into the link (a default value is left out), after checking them
    like a link's values: a crafted message can put anything in a widget's state."""
    keys = [WIDGETS.key(field) for field in ASSIGNMENT]
    values = {key: st.session_state[key] for key in keys if key in st.session_state}
    model, problems = ExercisesModel.from_url(values, "control")
    if problems:
        st.session_state["exq_assignment_errors"] = [problem.message for problem in problems]
        return
    link = model.to_url()  # the values away from their defaults
    for key in keys:
        if key in link:
            st.query_params[key] = link[key]
        elif key in st.query_params:
            del st.query_params[key]


def _secret() -> bytes | None:
    try:
        return server_secret()
    except SecretError as exc:  # a misconfigured server: no teacher link works (said on the Teacher tab)
        st.session_state["exq_secret_error"] = said_of(exc)
        return None


def _new_seed():
    """A new assignment with its teacher link: the seed is drawn at random, so its token opens no one else's keys."""
    st.session_state[WIDGETS.key("seed")] = secrets.randbelow(MAX_SEED + 1)
    _write_assignment()
    secret = _secret()
    if secret is not None:
        st.query_params[TEACHER_PARAM] = teacher_token(secret, st.session_state[WIDGETS.key("seed")])


def _answer_key(sheet: Sheet, problem: Problem) -> str:
    return f"exq_answer_{sheet.key}_{problem.number}"


def _submit(sheet: Sheet, problem: Problem):
    attempt, said = sheet.submit(problem, typed_answer(st.session_state.get(_answer_key(sheet, problem))))
    if attempt is not None:  # a counted try: kept for the resume link
        study_resume.save(sheet.key, problem.number, attempt)
    if said is not None:
        st.session_state[SAID] = said


def _hint(sheet: Sheet, problem: Problem):
    attempt, said = sheet.hint(problem)
    study_resume.save(sheet.key, problem.number, attempt)
    st.session_state[SAID] = said


def _reveal(sheet: Sheet, problem: Problem):
    st.session_state[SAID] = sheet.reveal(problem)




def draw_problem(sheet: Sheet, problem: Problem) -> None:
    _ = texts()
    attempt = sheet.attempts.get(problem.number, Attempt())
    status = _("solved") if attempt.correct else _.ngettext("{count} try", "{count} tries", attempt.tries,
                                                              count=attempt.tries)
    hints_used = _("hints used {used} of {total}", used=attempt.hints_used, total=len(HINT_STEPS))
    # The card is its form, with one markdown element for the title, the p / q table, the question and the tries:
    # few elements per problem, since a class opening the link draws them all. Enter presses Check, the form's first
    # button; Hint (and the presenter's Reveal) keep what is typed without checking it.
    with st.form(key=f"exq_form_{sheet.key}_{problem.number}", border=True, enter_to_submit=True):
        table = pq_table(problem.p.tokens, problem.p.values, problem.q.values, (_("token"), "p", "q"),
                         decimal_comma(), right_to_left())
        st.markdown(
            f"## {say(problem.title)}\n\n{table}\n\n**{markdown_escape(say(problem.prompt))}**\n\n"
            f":gray[:small[{status} · {hints_used}]]",
            anchors=False,
        )
        if problem.is_choice:
            st.radio(_("Your answer"), BRANCH_OPTIONS, index=None, key=_answer_key(sheet, problem), horizontal=True,
                     format_func=lambda option: _(BRANCH_NAMES[option]) if option in BRANCH_NAMES else str(option))
        else:
            st.text_input(
                _("Your answer"),
                key=_answer_key(sheet, problem),
                placeholder=_("A fraction, a decimal or a word"),
                help=_("A fraction (exact), a decimal (within {tolerance}), or '{undefined}' if it does not exist.",
                       tolerance=number(0.005), undefined=_("undefined")),
            )
        # Check and Hint never disable themselves (focus would drop to the page's body): pressed again once solved or
        # with every hint shown, they say so or change nothing
        st.form_submit_button(_("Check"), key=f"exq_check_{sheet.key}_{problem.number}", on_click=_submit,
                              args=(sheet, problem))  # its own key: the label is the language's
        if problem.number in sheet.feedback:
            show_feedback(sheet.feedback[problem.number])
        # the presenter's Reveal button sits beside Hint, in one row; without it, no row at all
        reveal_button = sheet.presenting and sheet.teacher  # the presenter's button: a teacher link's only
        buttons = st.container(horizontal=True) if reveal_button else st
        buttons.form_submit_button(
            _("Hint {number} of {total}", number=min(attempt.hints_used + 1, len(HINT_STEPS)), total=len(HINT_STEPS)),
            key=f"exq_hint_{sheet.key}_{problem.number}",
            on_click=_hint,
            args=(sheet, problem),
        )
        if reveal_button:
            buttons.form_submit_button(
                _("Reveal the solution"),
                key=f"exq_reveal_{sheet.key}_{problem.number}",
                on_click=_reveal,
                args=(sheet, problem),
                type="primary",
            )
        for i, hint in enumerate(hints(problem)[: attempt.hints_used], start=1):
            st.info(_("Hint {number}: {hint}", number=i, hint=markdown_escape(say(hint))))
        pressed = problem.number in sheet.revealed  # the presenter's "Reveal the solution" button
        if pressed or attempt.show_solution:
            # Open by itself after two wrong tries, except while presenting: then only on the presenter's press
            # (the collapsed expander can be opened by a click too).
            opened = pressed or (attempt.show_solution and not attempt.correct and not sheet.presenting)
            with st.expander(_("Worked solution"), expanded=opened):
                for line in worked_solution(problem):
                    st.markdown(f"- {markdown_escape(say(line))}")


def problems_tab(sheet: Sheet, tab) -> None:
    """Once drawn, the problems are drawn whatever tab is open: an answer typed but not yet checked lives only in the
    browser's answer box, which keeps it only while it is drawn on every run. Until the Problems tab has been open
    in this session nothing can have been typed, so a link straight to another tab does not draw them at all."""
    if tab.open:
        st.session_state["exq_problems_shown"] = True
    with tab:
        if st.session_state.get("exq_problems_shown"):
            _ = texts()
            score = running_score(sheet.attempts, len(sheet.problems))
            scores = st.container(horizontal=True)  # one row block, not three columns
            scores.metric(_("Score"), f"{score.correct} / {score.total}")
            scores.metric(_("Attempted"), score.attempted)
            scores.metric(_("Right first time"), score.first_try)
            st.caption(_.ngettext("Assignment: seed {seed}, {count} problem, {level}.",
                                  "Assignment: seed {seed}, {count} problems, {level}.", sheet.count, seed=sheet.seed,
                                  count=sheet.count, level=_(LEVEL_TITLES[sheet.level])))
            for problem in sheet.problems:
                draw_problem(sheet, problem)


def _bar_key(sheet: Sheet, number: int, token: str) -> str:
    return f"exq_bar_{sheet.key}_{number}_{token}"


def _current_bars(sheet: Sheet, exercise) -> tuple[float, ...]:
    keys = (_bar_key(sheet, exercise.number, t) for t in exercise.p.tokens)
    return tuple(round(float(st.session_state.get(key, 0.0)), 2) for key in keys)


def _check_bars(sheet: Sheet, exercise):
    sheet.check_bars(exercise.number, _current_bars(sheet, exercise))


def checked_bars(sheet: Sheet, exercise, current: tuple[float, ...]) -> str:
    """The score of the bars last checked, with the exact r beside them (or a word that a bar moved since);
    returns what to announce."""
    _ = texts()
    if exercise.number not in sheet.checked_bars:
        return ""
    if sheet.checked_bars[exercise.number] != current:
        st.caption(_("You moved a bar since your last check: press Check again to score it."))
        return ""
    result = score_prediction(exercise.truth, current)
    verdict = _("Close") if result.close else _("Not yet close")
    exact = ", ".join(f"{t} {fraction_text(r)}" for t, r in zip(exercise.p.tokens, exercise.truth))
    said = _("Exercise {number}, checked: {verdict}, total variation distance {tv}. The exact r: {exact}",
             number=exercise.number, verdict=verdict, tv=number(float(result.tv), ".3f"), exact=exact)
    st.markdown(_(
        "**{verdict}**: total variation distance {tv} (score {score}; close means at most {close}).",
        verdict=verdict, tv=number(float(result.tv), ".3f"), score=number(float(result.score), ".0%"),
        close=number(0.1),
    ))
    values = "; ".join(
        _("{token}: yours {yours}, r {exact}", token=t, yours=number(v, ".2f"), exact=fraction_text(r))
        for t, v, r in zip(exercise.p.tokens, current, exercise.truth)
    )
    chart(
        figure("prediction_vs_residual", exercise.p.tokens, current, exercise.truth),
        f"exq_truth_chart_{sheet.key}_{exercise.number}",
        _("Bar chart of your predicted residual beside the exact residual r: {values}", values=values),
    )
    st.markdown(
        markdown_table(
            (_("token"), _("your bar"), _("r (exact)"), _("error")),
            zip(
                exercise.p.tokens,
                (number(v, ".2f") for v in current),
                (exact_and_decimal(r, 3) for r in exercise.truth),
                (number(float(e), "+.3f") for e in result.errors),
            ),
        )
    )
    return said


def bars_exercise(sheet: Sheet, exercise) -> None:
    """One predict-the-bars exercise: its p and q, then the bars (a fragment, below)."""
    _ = texts()
    with st.container(border=True, key=f"exq_bars_{exercise.number}"):
        values = "; ".join(
            _("{token}: p {p}, q {q}", token=t, p=fraction_text(a), q=fraction_text(b))
            for t, a, b in zip(exercise.p.tokens, exercise.p.values, exercise.q.values)
        )
        chart(
            figure("pq_bars", exercise.p.tokens, exercise.p.values, exercise.q.values),
            f"exq_pq_chart_{sheet.key}_{exercise.number}",
            _("Bar chart of target p and draft q: {values}", values=values),
            table=(
                (_("token"), "p", "q"),
                [
                    (t, exact_and_decimal(a, 3), exact_and_decimal(b, 3))
                    for t, a, b in zip(exercise.p.tokens, exercise.p.values, exercise.q.values)
                ],
            ),
        )
        predicted_bars(sheet, exercise)


@st.fragment
def predicted_bars(sheet: Sheet, exercise) -> None:
    """The bars you draw, their sliders, Check and the score. A fragment: moving a bar or a slider reruns this part
    only, not the whole page nor the exercise's p and q chart above it (which a change never alters)."""
    # the bars you draw, bound to the sliders below (a release moves the sliders; a slider moves its bar)
    _ = texts()
    keys = [_bar_key(sheet, exercise.number, token) for token in exercise.p.tokens]
    bar_predictor(
        f"exq_bars_{sheet.key}_{exercise.number}", [f"r({t})" for t in exercise.p.tokens],
        _current_bars(sheet, exercise), keys, large=sheet.presenting,
        sum_note=" " + _("(a residual always sums to 1)."),
    )
    # one row of sliders sharing its width, wrapping on a phone (one layout block, not one per token)
    with st.container(horizontal=True):
        for token, key in zip(exercise.p.tokens, keys):
            # no value: it starts at 0 (min_value), and a value carried over from a closed tab is no conflict
            st.slider(_("Predict r({token})", token=token), 0.0, 1.0, step=float(BAR_STEP), key=key)
    current = _current_bars(sheet, exercise)
    st.button(
        _("Check"),
        key=f"exq_check_bars_{sheet.key}_{exercise.number}",
        on_click=_check_bars,
        args=(sheet, exercise),
        type="primary",
    )
    said = checked_bars(sheet, exercise, current)
    announce(f"exq-bars-{exercise.number}", said)


def bars_tab(sheet: Sheet, tab) -> None:
    with tab:
        if not tab.open:
            return
        _ = texts()
        st.write(_(
            "Set the height of every residual bar r(x) = max(0, p(x) − q(x)) / Z, then press **Check**. "
            "The score is the total variation distance ½·Σ|your bar − r(x)|: 0 is perfect."
        ))
        if sheet.level == "z0":
            st.caption(_("Z = 0 problems have no residual bars, so these exercises use the basic level."))
        # One exercise at a time, in its own tab (only the open one is drawn, like the page's tabs): its sliders are
        # most of this tab's work, and a class sent here by a link draws a third of them. The other exercises' bars
        # are carried over like every value in a closed tab (KEPT_WIDGET_PREFIXES), the open exercise too.
        labels = [_("Exercise {number}", number=exercise.number) for exercise in sheet.predictions]
        if st.session_state.get(BARS_TAB_KEY) not in (None, *labels):  # chosen in another language: the same number
            number_chosen = re.findall(r"\d+", str(st.session_state[BARS_TAB_KEY]))
            index = int(number_chosen[0]) - 1 if number_chosen and 0 < int(number_chosen[0]) <= len(labels) else 0
            st.session_state[BARS_TAB_KEY] = labels[index]
        exercise_tabs = st.tabs(labels, key=BARS_TAB_KEY, on_change="rerun")
        for exercise, exercise_tab in zip(sheet.predictions, exercise_tabs):
            with exercise_tab:
                if exercise_tab.open:
                    bars_exercise(sheet, exercise)


def results_tab(sheet: Sheet, tab) -> None:
    with tab:
        if not tab.open:
            return
        _ = texts()
        score = running_score(sheet.attempts, len(sheet.problems))
        st.write(_(
            "{correct} of {total} correct ({first} right first time). Download your results to hand in: they are not "
            "saved anywhere else.", correct=score.correct, total=score.total, first=score.first_try,
        ))
        rows = []
        for problem in sheet.problems:
            attempt = sheet.attempts.get(problem.number, Attempt())
            rows.append(
                {
                    _("problem"): problem.number,
                    _("answer"): attempt.answer,
                    _("correct"): _("yes") if attempt.correct else _("no"),
                    _("tries"): attempt.tries,
                }
            )
        st.dataframe(rows, hide_index=True, width="stretch")
        st.download_button(
            _("Download my results (CSV)"),
            lambda: results_csv(sheet.problems, sheet.attempts),  # built on the click, with the answers then
            file_name=f"residual-lab-results-seed{sheet.seed}-{sheet.level}.csv",
            mime="text/csv",
            on_click="ignore",
            key="exq_dl_results",
        )
        if study_resume.resume_token():
            st.markdown(_(
                "**Your resume link** (open it later, even after a restart, to continue with your answers):"))
            link = (
                assignment_url(st.context.url or "http://localhost:8501/", sheet.seed, sheet.count, sheet.level)
                + f"&{study_resume.RESUME_PARAM}={study_resume.resume_token()}"
            )
            st.link_button(_("Open my resume link"), link, icon=":material/link:")
            st.code(link, language=None, wrap_lines=True)
        else:
            st.button(
                _("Keep my answers: get a resume link"),
                key="exq_resume_start",
                on_click=study_resume.start,
                args=(sheet.key, sheet.attempts),
                help=_("Stores your answers on this app's server under a private id in the page's link."),
            )


def assignment_controls(sheet: Sheet) -> None:
    """Seed, count and level: drawn only while the Teacher tab is open, and they write the link themselves (not bound
    to it: a bound widget that is not drawn takes its value out of the link)."""
    _ = texts()
    for message in st.session_state.pop("exq_assignment_errors", []):
        st.error(markdown_escape(_("{problem}. The link keeps its last valid assignment.", problem=say(message))))
    section(_("Build an assignment"))
    st.write(_("Seed, count and level are in the page's link: everyone who opens it gets the same problems."))
    keys = tuple(WIDGETS.key(field) for field in ASSIGNMENT)
    start_from({WIDGETS.key(field): getattr(sheet, field) for field in ASSIGNMENT})  # from the link: no default
    c1, c2 = st.columns(2)
    assignment_fields((c1, c2, c2), keys, on_change=_write_assignment)
    c1.button(_("New random seed"), on_click=_new_seed, key="exq_new_seed")
    c2.caption(_(LEVEL_TITLES[sheet.level]) if sheet.level in LEVEL_TITLES else "")


def assignment_link(sheet: Sheet) -> str:
    """The assignment link for the address students reach, as text and QR code (the class's join link's rule,
    lab.views.live_class.join_link: RESIDUAL_LAB_PUBLIC_URL, the address typed here, this browser's unless it is
    loopback);
    returns the address the teacher's own link uses."""
    _ = texts()
    typed = ""
    if student_address().source != "environment":  # RESIDUAL_LAB_PUBLIC_URL, when set and usable, is the address
        typed = st.text_input(
            _("App address for students (optional)"),
            key="exq_base_url",
            placeholder=_("e.g. {example}", example="http://192.168.1.20:8501"),
            help=_("The link uses the address this browser opened unless it is localhost; type one students can "
                   "reach to use it instead."),
        )
    if typed.strip():
        try:
            typed = check_base_url(typed)
        except ExerciseInputError as exc:
            st.error(markdown_escape(_("{problem}. The link below does not use it.", problem=say(exc))))
            typed = ""
    address = student_address(typed)
    if address.problem:
        st.error(markdown_escape(say(address.problem)))
    here = st.context.url or "http://localhost:8501/"
    if address.root is None:
        no_address_warning(N_("assignment link"))
        return here
    url = assignment_url(f"{address.root}/{EXERCISES_URL_PATH}", sheet.seed, sheet.count, sheet.level)
    st.markdown(_("**Assignment link** (copy it, or let the class scan the QR code):"))
    st.code(url, language=None, wrap_lines=True)
    st.image(
        qr_image(url),
        caption=_("QR code of the assignment link"),
        alt=_("QR code that opens the assignment link shown above"),
        width=420 if sheet.presenting else 260,
    )
    return f"{address.root}/{EXERCISES_URL_PATH}"


def teacher_link(sheet: Sheet, base: str) -> None:
    """The teacher's own link (never on the projector), or how to get one."""
    _ = texts()
    if error := st.session_state.pop("exq_secret_error", None):
        st.error(_("Teacher links do not work on this server: {problem}.", problem=markdown_escape(say(error))))
    if sheet.teacher and not sheet.presenting:  # the projector is public: the teacher's link is not shown there
        st.markdown(_(
            "**Your teacher link** (keep it private: it opens the answer keys and, in presentation mode, the "
            "Reveal buttons; give the class the assignment link above):"
        ))
        link = teacher_url(base, sheet.seed, sheet.count, sheet.level, sheet.link_token)
        st.code(link, language=None, wrap_lines=True)
    elif not sheet.teacher:
        st.info(
            _("Answer keys open with a teacher link only. Press **New random seed** above: it makes a new "
              "assignment and puts its teacher link in this page's address (keep that address private, and give "
              "the class the assignment link). A seed typed by hand makes a student link without keys."),
            icon=":material/lock:",
        )


def downloads(sheet: Sheet) -> None:
    """The answer keys (a teacher link's only) and the worksheets."""
    _ = texts()
    st.markdown(_("**Downloads** (the same for everyone with this link; nothing is saved on the server):"))
    stem = f"residual-lab-seed{sheet.seed}-{sheet.level}-{sheet.count}"
    keys_column, worksheets_column = st.columns(2)
    # The files are the same for the whole class (built once) and handed over only on a click: passing the
    # text itself would hash and store every file again on every run of every student's page.
    keys = (  # (column, label, file name suffix, MIME type, widget key): a teacher link's only
        (keys_column, N_("Answer key (Markdown)"), "key.md", "text/markdown", "exq_dl_key_md"),
        (keys_column, N_("Answer key (CSV)"), "key.csv", "text/csv", "exq_dl_key_csv"),
    )
    worksheets = (  # questions and p / q only, blanks for the answers
        (worksheets_column, N_("Worksheet (HTML, prints cleanly)"), "worksheet.html", "text/html", "exq_dl_ws_html"),
        (worksheets_column, N_("Worksheet (Markdown)"), "worksheet.md", "text/markdown", "exq_dl_ws_md"),
        (worksheets_column, N_("Worksheet (CSV)"), "worksheet.csv", "text/csv", "exq_dl_ws_csv"),
    )
    code = page_code()  # the files for people in the page's language (made on the click, outside the run)
    for column, label, suffix, mime, key in (keys if sheet.teacher else ()) + worksheets:
        column.download_button(
            _(label),
            lambda suffix=suffix: assignment_downloads(sheet.seed, sheet.count, sheet.level, code)[suffix],
            file_name=f"{stem}-{suffix}",
            mime=mime,
            on_click="ignore",
            key=key,
        )
    if sheet.teacher:
        st.caption(_("The same key from a terminal: {command}",
                     command=f"`python -m lab exercises --seed {sheet.seed} --count {sheet.count} "
                             f"--level {sheet.level}`"))


def teacher_tab(sheet: Sheet, tab) -> None:
    """The assignment's controls, its link and QR code, the teacher link, and the downloads."""
    with tab:
        if not tab.open:
            return
        assignment_controls(sheet)
        base = assignment_link(sheet)
        teacher_link(sheet, base)
        downloads(sheet)


def tab_name(label) -> str | None:
    """The tab (its English name, as a link writes it) a label names in any of the lab's languages."""
    for code in (*LANGUAGES, PSEUDO):
        for name in TABS:
            if catalog_texts(code)(name) == label:
                return name
    return None


def on_tab_change() -> None:
    """The open tab into the link, under its English name (a link opens the same tab in every language)."""
    name = tab_name(st.session_state.get(WIDGETS.key("tab")))
    if name is None or name == TABS[0]:
        st.query_params.pop(WIDGETS.key("tab"), None)
    else:
        st.query_params[WIDGETS.key("tab")] = name


def page_tabs(linked: str):
    """The page's four tabs in its language. The open one is in the link under its English name (tab=Predict+the+
    bars), so a teacher can send the class straight to a tab whatever language each student reads; a tab chosen in
    another language stays open when the language changes."""
    _ = texts()
    labels = [_(name) for name in TABS]
    key = WIDGETS.key("tab")
    chosen = tab_name(st.session_state.get(key)) or (linked if linked in TABS else TABS[0])
    if st.session_state.get(key) != _(chosen):
        st.session_state[key] = _(chosen)
    return st.tabs(labels, key=key, on_change=on_tab_change)


def main() -> None:
    assignment, link_problems = ExercisesModel.from_url(st.query_params)  # the link's assignment, read once
    refuse_link_values(link_problems, "exq_link_problems")  # a refused value: taken out of the link, then a rerun
    intro()
    show_link_warnings("exq_link_problems")  # the seed, count or level a link gave that was refused
    said, refused = st.session_state.get(SAID, ("", ""))
    announce("exq", say(said), error=say(refused))
    keep_closed_tabs_values()
    tab_problems, tab_bars, tab_results, tab_teacher = page_tabs(assignment.tab)
    sheet = open_sheet(assignment)
    if resume_problem := study_resume.load_saved(sheet.key, sheet.attempts) or st.session_state.pop(
        study_resume.RESUME_ERROR, None
    ):
        _ = texts()
        st.warning(_("Resume link: {problem}", problem=markdown_escape(say(resume_problem))))
        if study_resume.waiting():
            study_resume.retry_while_down()
    teacher_tab(sheet, tab_teacher)
    problems_tab(sheet, tab_problems)
    bars_tab(sheet, tab_bars)
    results_tab(sheet, tab_results)
    keep_in_browser(sheet)


def keep_in_browser(sheet: Sheet) -> None:
    """This assignment's attempts in the browser's localStorage: a reload (a new session) brings them back."""

    def arrived(text: str) -> None:
        if not text:
            return
        try:
            saved = attempts_from_text(text, sheet.problems)
        except ValueError as exc:
            st.session_state[SAID] = ("", said("Your saved answers could not be used: {problem}.",
                                               problem=said_of(exc)))
            return
        for problem_number, attempt in saved.items():
            sheet.attempts.setdefault(problem_number, attempt)  # an attempt made in this session is the newer

    keep = attempts_text(sheet.attempts) if any(a.tries or a.hints_used for a in sheet.attempts.values()) else None
    browser_memory(f"residual-lab-exercises-{sheet.key}", keep, arrived)


main()
