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
