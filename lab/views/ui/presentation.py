"""Presentation mode for the projector, applied by app.py to every page.

One toggle (also in the URL as ``present=1``) enlarges text and charts, hides the sidebar (navigation
moves to the top bar) and puts every reveal under the presenter's control: pages ask
:func:`is_presenting` / :func:`url_reveal_allowed` and, while presenting, reveal only on a button
press, never from a URL parameter or a reload. The CSS is static: no user text ever goes into HTML.
"""

from __future__ import annotations

import streamlit as st

from lab.charts import palette
from lab.views.ui import language

PRESENT_KEY = "present"  # widget key and URL parameter
APP_PARAMS = (PRESENT_KEY, language.LINK_PARAM)  # URL parameters of the whole app, not of one page
URL_ON_WORDS = ("1", "true", "yes", "on")
PQ_FIT_KEY = "pq-fit"  # a p / q chart sized by the CSS below (lab.charts.residual.pq_bars with fit): shorter on phones

# Every page, presenting or not (WCAG 2.1 AA; docs/accessibility.md). Static CSS only.
# - Focus: Streamlit shows keyboard focus on navigation links and toggles as a faint background wash (1.2:1) and on
#   buttons, slider thumbs and help icons as a pale ring (2.2:1); a 3 px near-black outline, 2 px off the element
#   (so it lies on the page's own background: 17:1 on white, 15.5:1 on the sidebar's grey) is drawn on whatever has
#   keyboard focus. Text boxes, number inputs and selects keep their own focused border (5.2:1), so an outline is
#   not added inside them; a toggle's, checkbox's or radio's input is invisible, so its label gets the outline, and
#   a slider's (also invisible) gives it to the slider's thumb.
# - Code: Streamlit's highlight colours (keywords 3.6:1, comments 3.5:1, numbers and operators below 3:1 on the
#   code block's background) become palette.CODE_COLORS, each at least 5.9:1 there.
# - Reflow (320 px): long words in headings wrap; a table wider than the screen scrolls sideways in its own box
#   (its cells wrap at spaces only, so a number is never split), never the whole page.
_CODE_CSS = "\n".join(
    f'[data-testid="stCode"] .token{"." + kind if kind else ""} {{ color: {colour}; }}'
    for kind, colour in palette.CODE_COLORS.items()
)
ACCESSIBILITY_CSS = f"""
<style>
:focus-visible:not(input):not(textarea),
label:has(input[type="checkbox"]:focus-visible), label:has(input[type="radio"]:focus-visible),
[data-testid="stSlider"] div:has(> div > input[type="range"]:focus-visible) {{
  outline: 3px solid {palette.FOCUS_RING} !important;
  outline-offset: 2px !important;
}}
{_CODE_CSS}
/* right to left (Arabic, lab/views/ui/language.py): the page flows from the right, while charts keep their axes and
   code, tables of numbers and formulas keep their order */
html[dir="rtl"] [data-testid="stPlotlyChart"], html[dir="rtl"] .js-plotly-plot, html[dir="rtl"] code,
html[dir="rtl"] pre, html[dir="rtl"] [data-testid="stDataFrame"], html[dir="rtl"] .katex,
html[dir="rtl"] .rl-bp-group {{ direction: ltr; }}
html[dir="rtl"] [data-testid="stMetricValue"] {{ direction: ltr; text-align: right; }}
html[dir="rtl"] :is([data-testid="stElementContainer"], [data-testid="stMarkdown"], [data-testid="stCaptionContainer"],
[data-testid="stHeading"], h1, h2, h3, p, li) {{ text-align: start; }}
/* the language menu in the bar above the page (lab/views/ui/language.py): no taller than the toggle beside it, so
   the page below starts where it did (the explorer's answer stays on a 1080-pixel screen); still a 24 px target */
.st-key-presentation-bar [data-testid="stSelectbox"] > div,
.st-key-presentation-bar [data-testid="stSelectbox"] > div > div {{ height: auto !important; min-height: 0; }}
.st-key-presentation-bar [data-testid="stSelectbox"] :is(input, button) {{
  padding-top: 0 !important; padding-bottom: 0 !important; height: 24px !important; min-height: 0 !important;
}}
.st-key-presentation-bar [data-testid="stSelectbox"] input {{ font-size: 0.875rem; }}
/* a closed sidebar is moved off the screen's left edge; on the right it would cover the page, so it is hidden */
html[dir="rtl"] [data-testid="stSidebar"][data-collapsed="true"] {{ visibility: hidden; }}
/* live regions and the scroll-box observer (lab/views/ui/accessibility.py): out of the layout and invisible; a student
   page's live part shows its lines (lab/views/live_class/follow.py: the round, what was saved), its regions still
   invisible */
[class*="st-key-live-"]:not(:has([data-shown] > p)), .st-key-a11y-scroll-boxes, [class*="st-key-live-"] [data-live],
.st-key-a11y-document-language,
[class*="st-key-browser-memory-"] {{
  position: absolute !important; width: 1px !important; height: 1px !important; overflow: hidden !important;
  clip-path: inset(50%) !important; white-space: nowrap !important; margin: -1px !important; padding: 0 !important;
}}
/* a code block's copy button (a link to copy: the teacher link, the join link, an assignment's link) always shown,
   not only under the mouse: the page says where it is, and a touch screen has no hover */
[data-testid="stCode"] div:has(> [data-testid="stElementToolbarButton"]),
[data-testid="stCode"] div:has(> div > [data-testid="stElementToolbarButton"]),
[data-testid="stCode"] [data-testid="stElementToolbarButton"] {{
  visibility: visible !important; opacity: 1 !important;
}}
[data-shown] p {{ margin: 0 0 0.5rem; }}
[data-shown] p:last-child {{ margin-bottom: 0; }}
[data-shown] p.rl-small {{ font-size: 0.875rem; color: {palette.CAPTION}; }}
h1, h2, h3, h4 {{ overflow-wrap: anywhere; }}
/* a heading with an anchor (the Glossary's terms, linked from the lesson) keeps its anchor, not the hover link: a
   tab stop on every heading */
[data-testid="stHeaderActionElements"] {{ display: none !important; }}
/* touch targets of at least 24 x 24 px (WCAG 2.2's 2.5.8): help icons (16 px) and radio options (13 px circles) */
[data-testid="stTooltipHoverTarget"]:has([data-testid="stTooltipIcon"]), button[aria-label^="Help for"] {{
  min-width: 24px; min-height: 24px; display: inline-flex; align-items: center; justify-content: center;
}}
[data-testid="stRadio"] label[data-baseweb="radio"] {{ min-height: 24px; align-items: center; }}
[data-testid="stMarkdownContainer"]:has(> table) {{ overflow-x: auto; }}
/* a phone: tables with narrower cell padding, so that six columns of fractions (a reconstruction) fit 390 px */
@media (max-width: 640px) {{
  [data-testid="stMarkdownContainer"] th, [data-testid="stMarkdownContainer"] td {{ padding: 0.3rem 0.4rem; }}
}}
@media (min-width: 700px) {{ [class*="st-key-scroll-cue-"] {{ display: none !important; }} }}
/* the table's toolbar (search, download, full screen) is drawn just above the table: room for it under the cue */
[class*="st-key-scroll-cue-"] {{ padding-bottom: 1.75rem; }}
/* the p / q chart beside the bars to draw: on a phone, where they stack, short enough for both on one screen */
[class*="st-key-pq-fit"] [data-testid="stPlotlyChart"], [class*="st-key-pq-fit"] .js-plotly-plot {{ height: 420px; }}
@media (max-width: 640px) {{
  [class*="st-key-pq-fit"] [data-testid="stPlotlyChart"], [class*="st-key-pq-fit"] .js-plotly-plot {{ height: 260px; }}
}}
</style>
"""

# Static CSS only. Streamlit sizes text in rem, so a larger root font enlarges every page's text;
# plotly draws text in px: tick labels, bar labels and axis titles get larger px sizes (the legend keeps its
# size, because plotly measures it before CSS applies and a larger legend text would be cut off).
PRESENTATION_CSS = """
<style>
html { font-size: 21px; }
/* Narrow screens show the top navigation inside the sidebar menu, so the sidebar is hidden on wide ones only. */
@media (min-width: 641px) {
  [data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"], [data-testid="stExpandSidebarButton"] {
    display: none !important;
  }
}
.stMainBlockContainer, [data-testid="stMainBlockContainer"] { padding-top: 4.5rem; }
.js-plotly-plot .xtick text, .js-plotly-plot .ytick text, .js-plotly-plot .bartext { font-size: 16px !important; }
.js-plotly-plot .g-xtitle text, .js-plotly-plot .g-ytitle text { font-size: 17px !important; }
@media (max-width: 640px) { html { font-size: 18px; } }
</style>
"""


# --- projector type sizes (the Class page in presentation mode, and the projector view) --------------------------
# A separate block from the app-wide presentation CSS above: the Class page adds it while presenting, the
# projector view always (with its own layout rules, lab/views/live_class/projector.py). Charts get these sizes from
# their
# figure (text_size), so plotly measures its legend at the size it draws it; the CSS covers the page's text: body
# text at least 24 px at 1920x1080, dark text only (no pale grey caption holds a fact; contrast >= 4.5:1).
PRESENT_TEXT_PX = 22  # chart ticks, legends and value labels in presentation mode
PROJECTOR_TEXT_PX = 26  # the same on the projector view
PROJECTOR_PQ_TEXT_PX = 24  # the projector's p / q chart (a smaller chart beside the QR code)
PROJECTOR_PAIR_TEXT_PX = 22  # the projector's two rounds side by side (half the width each)
CLASS_PRESENTING_CSS = """
<style>
html { font-size: 24px; }
[data-testid="stCaptionContainer"], [data-testid="stCaptionContainer"] p, [data-shown] p.rl-small,
[data-testid="stWidgetLabel"] p, [data-testid="stMetricLabel"] p { color: __INK__ !important; }
/* after PRESENTATION_CSS's 16 px: the class's charts are drawn with PRESENT_TEXT_PX, and keep it */
.js-plotly-plot .xtick text, .js-plotly-plot .ytick text, .js-plotly-plot .bartext,
.js-plotly-plot .g-xtitle text, .js-plotly-plot .g-ytitle text { font-size: 22px !important; }
@media (max-width: 640px) { html { font-size: 18px; } }
</style>
""".replace("__INK__", palette.TEXT)  # the palette's text colour: 15.9:1 on white

DISPLAY_PARAM = "display"  # the projector view's display-only key (lab/views/live_class/projector.py)
# The projector view: no header, sidebar or navigation (nothing to press), and a layout in window units, so 1920x1080
# and 1280x720 (the same picture, scaled) fit without scrolling. Read from the back row of a 150-seat hall: body
# text 3.4vh (37 px at 1080 lines, 24 px at 720); while waiting the code, the address to type and a QR code of 60vh
# fill the screen; with an activity the QR code stays at least 28vh (300 px at 1080 lines); after the reveal the
# exact answer is the largest text. The results chart takes what the window has left.
PROJECTOR_CSS = """
<style>
html { font-size: 3.4vh; }
[data-testid="stHeader"], [data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"],
[data-testid="stExpandSidebarButton"], [data-testid="stToolbar"], [data-testid="stDecoration"],
[data-testid="stElementToolbar"] {
  display: none !important;
}
.stMainBlockContainer, [data-testid="stMainBlockContainer"] {
  padding: 1.2vh 2.5vw 0 2.5vw !important; max-width: 100% !important;
}
[data-testid="stMain"] [data-testid="stVerticalBlock"] { gap: 0.6vh 1rem; }
[data-testid="stMarkdownContainer"] p, [data-testid="stMarkdownContainer"] td,
[data-testid="stMarkdownContainer"] th, [data-testid="stText"] { color: __INK__; font-size: 1rem; line-height: 1.3; }
/* Streamlit pulls each markdown element up by its last paragraph's margin: both go, the column gap spaces them */
[data-testid="stMarkdownContainer"] p { margin-bottom: 0; }
[data-testid="stMain"] [data-testid="stMarkdownContainer"] { margin-bottom: 0 !important; }
.st-key-proj-code h1 { font-size: 1rem !important; font-weight: 600; padding: 0 !important; margin: 0;
  line-height: 1.2; color: __INK__; }
.st-key-proj-code h1 strong { display: block; font-size: min(12vh, 6vw); font-weight: 800; letter-spacing: 0.06em;
  line-height: 1.05; white-space: nowrap; font-family: "Source Code Pro", monospace; }
.st-key-proj-address p { font-size: 1rem !important; line-height: 1.25; }
.st-key-proj-address code { font-size: min(3.6vh, 1.9vw); font-weight: 700; color: __INK__; background: none;
  padding: 0; overflow-wrap: anywhere; font-family: "Source Code Pro", monospace; }
.st-key-proj-top-results .st-key-proj-address code,
.st-key-proj-top-open .st-key-proj-address code { white-space: nowrap; }
.st-key-proj-join [data-testid="stText"] { overflow-wrap: anywhere; white-space: normal; }
/* while waiting the join link has the code's column: in monospace it wraps alike whatever its letters */
.st-key-proj-top-wait .st-key-proj-join [data-testid="stText"] span { font-family: "Source Code Pro", monospace; }
.st-key-proj-join [data-testid="stMarkdownContainer"] p { white-space: nowrap; }
.st-key-proj-qr img { height: min(44vh, 24vw) !important; width: auto !important; max-width: 100%;
  object-fit: contain; }
/* waiting: the code, the address and the QR code are the screen */
.st-key-proj-top-wait .st-key-proj-code h1 strong { font-size: min(21vh, 11vw); }
.st-key-proj-top-wait .st-key-proj-address code { font-size: min(7vh, 3.4vw); }
.st-key-proj-top-wait .st-key-proj-address p { font-size: 1.5rem !important; }
.st-key-proj-top-wait .st-key-proj-qr img { height: min(78vh, 41vw) !important; }
/* once the results are up, the top band (code, QR code, p / q chart) gives them room */
.st-key-proj-top-results .st-key-proj-code h1 strong { font-size: min(6vh, 3.5vw); }
.st-key-proj-top-results .st-key-proj-qr img { height: 28vh !important; }
.st-key-proj-top-results .st-key-proj-pq [data-testid="stPlotlyChart"],
.st-key-proj-top-results .st-key-proj-pq .js-plotly-plot { height: 28vh !important; }
.st-key-proj-question h2 { font-size: 1.15rem !important; padding: 0.3vh 0 0 0 !important; margin: 0;
  color: __INK__; }
.st-key-proj-exact p { font-size: min(7.5vh, 4vw) !important; line-height: 1.1; font-weight: 700; }
.st-key-proj-exact p strong { font-size: 1.15rem; }
.st-key-proj-exact-long p { font-size: min(4.4vh, 2.3vw) !important; line-height: 1.15; font-weight: 700; }
.st-key-proj-exact-long p strong { font-size: 1.15rem; }
.st-key-proj-status-normal p { font-size: 1.2rem !important; }
.st-key-proj-status-wait p { font-size: 1.5rem !important; }  /* as large as "Go to" */
/* an activity open, no results yet: the question and the count are what the room reads */
.st-key-proj-prompt p { font-size: 1.25rem !important; }
.st-key-proj-countdown .rl-countdown { font-size: 1.25rem; margin: 0; }
.st-key-proj-status-big p { font-size: 1.8rem !important; }
[class*="st-key-proj-round-"] p { font-size: 1.1rem !important; }
/* plotly sizes a figure without a height to its element: the element's height is set here, in window units */
.st-key-proj-pq [data-testid="stPlotlyChart"], .st-key-proj-pq .js-plotly-plot { height: 58vh !important; }
.st-key-proj-top-open .st-key-proj-qr img { height: min(52vh, 25vw) !important; }
/* more tokens than a column holds: the p / q chart in a band of its own, under a smaller top band */
.stApp:has(.st-key-proj-pq-wide-open) .st-key-proj-top-open .st-key-proj-qr img { height: 22vh !important; }
.st-key-proj-pq-wide-open .st-key-proj-pq [data-testid="stPlotlyChart"],
.st-key-proj-pq-wide-open .st-key-proj-pq .js-plotly-plot { height: 30vh !important; }
/* a single round's chart of many values (names on end under it) once revealed: the room the p / q chart left */
[class*="st-key-proj-chart-1-revealed"][class*="-crowded"] [data-testid="stPlotlyChart"],
[class*="st-key-proj-chart-1-revealed"][class*="-crowded"] .js-plotly-plot { height: 37vh !important; }
/* round 2 alone (too many values for two charts side by side) once revealed: the line on the rounds under it */
[class*="st-key-proj-chart-1-revealed"][class*="-moved"] [data-testid="stPlotlyChart"],
[class*="st-key-proj-chart-1-revealed"][class*="-moved"] .js-plotly-plot { height: 28vh !important; }
[class*="st-key-proj-chart-1-revealed"][class*="-crowded-moved"] [data-testid="stPlotlyChart"],
[class*="st-key-proj-chart-1-revealed"][class*="-crowded-moved"] .js-plotly-plot { height: 28vh !important; }
[class*="st-key-proj-chart-1-shown"] [data-testid="stPlotlyChart"],
[class*="st-key-proj-chart-1-shown"] .js-plotly-plot { height: 50vh !important; }
[class*="st-key-proj-chart-1-revealed"] [data-testid="stPlotlyChart"],
[class*="st-key-proj-chart-1-revealed"] .js-plotly-plot { height: 34vh !important; }
[class*="st-key-proj-chart-2-shown"] [data-testid="stPlotlyChart"],
[class*="st-key-proj-chart-2-shown"] .js-plotly-plot { height: 40vh !important; }
[class*="st-key-proj-chart-2-revealed"] [data-testid="stPlotlyChart"],
[class*="st-key-proj-chart-2-revealed"] .js-plotly-plot { height: 20vh !important; }
__ADDRESS_FIT__
</style>
""".replace("__INK__", palette.TEXT)

# The address students type is never broken inside (a port split over two lines is typed wrong): while waiting it
# keeps to one line and its type shrinks with its length so that it fits the code's column, about 46 % of the
# window's width (Source Code Pro's characters are CHARACTER_EM wide). Longer than ADDRESS_FIT_CHARS it may wrap.
ADDRESS_FIT_CHARS = 64
ADDRESS_COLUMN_VW = 43  # the code's column while waiting, less a margin: a 24-character address gets 3 vw
CHARACTER_EM = 0.6


def address_fit_key(address_lines: list[str]) -> str:
    """The container key that sizes the typed address for its longest line (PROJECTOR_CSS's fit rules)."""
    return f"proj-fit-{min(max(map(len, address_lines)), ADDRESS_FIT_CHARS)}"


PROJECTOR_CSS = PROJECTOR_CSS.replace(
    "__ADDRESS_FIT__",
    "\n".join(
        f".st-key-proj-top-wait .st-key-proj-fit-{n} code {{ font-size: "
        f"min(7vh, 3.4vw, {ADDRESS_COLUMN_VW / (CHARACTER_EM * n):.3f}vw);"
        + (" white-space: nowrap; }" if n < ADDRESS_FIT_CHARS else " }")
        for n in range(1, ADDRESS_FIT_CHARS + 1)
    ),
)


def is_projector_link() -> bool:
    """Is this run the projector view's link (no toggle, no navigation: nothing on it can be pressed)?"""
    return DISPLAY_PARAM in st.query_params


def is_presenting() -> bool:
    """True while presentation mode is on (for pages: reveal only on the presenter's button press)."""
    return bool(st.session_state.get(PRESENT_KEY, False))


def url_reveal_allowed() -> bool:
    """May a page restore a revealed state from its URL or a reload? Not while presenting."""
    return not is_presenting()


def _url_says_present() -> bool:
    return str(st.query_params.get(PRESENT_KEY, "")).strip().lower() in URL_ON_WORDS


def _sync_url() -> None:
    """Keep ``present=1`` in the URL exactly while presenting (pages may rewrite their own parameters)."""
    if is_presenting():
        if st.query_params.get(PRESENT_KEY) != "1":
            st.query_params[PRESENT_KEY] = "1"
    elif PRESENT_KEY in st.query_params:
        del st.query_params[PRESENT_KEY]


def _joined_student_link() -> bool:
    """The Class page's link of a joined student (``?code=C&student=ID``, lab/views/live_class/classroom.py), or the
    join link a student scans (``?code=C&join=KEY``): a student's page, with nothing of the teacher's."""
    if not st.query_params.get("code"):
        return False
    return bool(st.query_params.get("student")) or (
        bool(st.query_params.get("join")) and "teacher" not in st.query_params
    )


def presentation_toggle(toggle: bool = True) -> bool:
    """The bar above every page but the projector's: the language menu (lab.views.ui.language) and the toggle, drawn
    by app.py; returns whether presentation mode is on.

    A new session (a link or a reload) starts from the URL's ``present=1`` (true/yes/on work too); after
    that the toggle is the source of truth and the URL follows it. A joined student's Class page, and the join link
    a student scans, have no toggle (``toggle=False``: also a joined student's other pages), only the language menu.
    """
    student = not toggle or _joined_student_link()
    if student:  # a student's own class page shows the class, nothing of the teacher's
        st.session_state[PRESENT_KEY] = False  # (the toggle is not drawn in this run, so its state may be set)
        _sync_url()
    elif PRESENT_KEY not in st.session_state:
        st.session_state[PRESENT_KEY] = _url_says_present()
    _ = language.frame_texts()
    with st.container(horizontal=True, horizontal_alignment="right", key="presentation-bar"):
        language.selector()
        if not student:
            st.toggle(
                _("Presentation mode"),
                key=PRESENT_KEY,
                on_change=_sync_url,
                help=_("Larger text and charts, no sidebar (pages move to the top bar); answers appear only "
                       "when you press a reveal button. Also in the link as present=1."),
            )
    if student:
        return False
    _sync_url()
    return is_presenting()


def apply_presentation_style() -> None:
    """The app's static styles: the accessibility rules on every page, the projector's sizes while presenting."""
    st.html(ACCESSIBILITY_CSS + PRESENTATION_CSS if is_presenting() else ACCESSIBILITY_CSS)
