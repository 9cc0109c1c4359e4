"""One palette for every page and chart: colour-blind-safe (Okabe-Ito based), each colour at
least 3:1 against white, and a fill pattern per role so colour never carries meaning alone."""

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

# the white overlay pattern drawn on a bar's own colour
PATTERN_STYLE = {"fillmode": "overlay", "fgcolor": "#ffffff", "size": 8, "solidity": 0.3}


def pattern_marker(color: str, pattern: str, **extra) -> dict:
    """A plotly bar marker: ``color`` with an outline of the same colour and, when ``pattern`` is not
    empty, a white overlay pattern on that colour (so colour never carries meaning alone)."""
    marker = {"color": color, "line": {"color": color, "width": 1.5}, **extra}
    if pattern:
        marker["pattern"] = {"shape": pattern, **PATTERN_STYLE}
    return marker


def role_marker(role: str) -> dict:
    """The bar marker of a palette role (p, q, accepted, correction, residual, prediction)."""
    return pattern_marker(COLORS[role], PATTERNS[role])
