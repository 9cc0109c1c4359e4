"""One palette for every page and chart: colour-blind-safe (Okabe-Ito based), each colour at
least 3:1 against white, and a fill pattern per role so colour never carries meaning alone.

Every colour the lab draws with is named here and nowhere else (tests/test_palette.py checks that no
other file of lab/ holds a colour literal): changing the look of the charts is editing this file.
"""

# role -> (colour, plotly bar pattern shape); contrast ratios on white in the comments.
TARGET = "#0072B2"  # p, blue, 5.2:1
DRAFT = "#D55E00"  # q, vermillion, 3.9:1
ACCEPTED = "#009E73"  # min(p, q), bluish green, 3.4:1
CORRECTION = "#AA3377"  # r and Z*r, purple, 6.1:1
PREDICTION = "#555555"  # the student's guess, grey, 7.5:1

COLORS = {
    "p": TARGET,
    "q": DRAFT,
    "accepted": ACCEPTED,
    "correction": CORRECTION,
    "residual": CORRECTION,
    "prediction": PREDICTION,
}

PATTERNS = {
    "p": "",
    "q": ".",
    "accepted": "",
    "correction": "/",
    "residual": "/",
    "prediction": "x",
}

# neutral ink and paper (contrast on white in the comments)
PAPER = "#ffffff"  # chart background, and the pattern drawn over a bar's own colour
TEXT = "#222222"  # titles, axis and bar labels, 15.9:1
DARK_TEXT = "#111111"  # a label inside a light bar (4.9:1 on the accepted green)
AXIS = "#444444"  # axis lines and the zero line, 9.7:1
GRID = "#dddddd"  # grid lines: light on purpose, they carry no meaning
MUTED = "#767676"  # discarded drafts, in the block chart and the Blocks table, 4.5:1
CAPTION = "#707070"  # a line drawn as a caption (Streamlit's: the theme's #111111 text at 60 %), 4.95:1

# series that are not one of the roles above
LAW = "#332288"  # a mistaken (or checked) output law: indigo, 12:1
GUIDE = "#666666"  # guide lines, the unprocessed draft, a second law: grey, 5.7:1
LIGHT_GUIDE = "#767676"  # the second guide line (float32's eps / Z), dashed (float64's is dotted): 4.5:1
BLACK = "#000000"  # a third law, with its own pattern
EXPECTED = TEXT  # expected-count markers: near black, with a diamond symbol
FLOAT32 = TEXT  # the float32 error series: near black, square markers and a dashed line
REJECTED = DRAFT  # a rejected draft is the draft's token: vermillion, crossed out
BOX_FILL = "rgba(85,85,85,0.08)"  # the live class's box around the predictions: PREDICTION, nearly clear

# the page's own styles (lab/views/ui/presentation.py): the keyboard focus outline, and code highlighting on
# Streamlit's code block background (#f7f7f6), each at least 5.9:1 there
FOCUS_RING = "#1a1a1a"  # 17:1 on white, 15.5:1 on the sidebar's grey
CODE_COLORS = {
    "": "#1a1a1a",  # every token not named below
    "keyword": "#0550ae",  # 7.1:1
    "boolean": "#0550ae",
    "comment": "#57606a",  # 6.0:1
    "number": "#116329",  # 6.9:1
    "operator": "#953800",  # 6.9:1
    "string": "#0a3069",  # 12:1
    "builtin": "#6639ba",  # 6.9:1
    "function": "#6639ba",
    "class-name": "#6639ba",
    "punctuation": "#444444",  # 9.1:1
}

# the label colour inside a bar of a role (near black on the light green; a patterned bar has no label inside)
INSIDE_TEXT = {"accepted": DARK_TEXT, "correction": PAPER}

# the white overlay pattern drawn on a bar's own colour
PATTERN_STYLE = {"fillmode": "overlay", "fgcolor": PAPER, "size": 8, "solidity": 0.3}

# a table row of a discarded draft (pandas Styler CSS)
MUTED_ROW_CSS = f"color: {MUTED}; font-style: italic"


def pattern_marker(color: str, pattern: str, **extra) -> dict:
    """A plotly bar marker: ``color`` with an outline of the same colour and, when ``pattern`` is not
    empty, a white overlay pattern on that colour (so colour never carries meaning alone)."""
    marker = {"color": color, "line": {"color": color, "width": 1.5}, **extra}
    if pattern:
        marker["pattern"] = {"shape": pattern, **PATTERN_STYLE}
    return marker

