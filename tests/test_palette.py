"""Changing the palette is editing one file: no colour literal in lab/ outside lab/charts/palette.py, and
every chart takes its colours from there."""

import re
from pathlib import Path

from lab.charts import palette

ROOT = Path(__file__).resolve().parent.parent
PALETTE = ROOT / "lab" / "charts" / "palette.py"
# #rgb, #rrggbb, #rrggbbaa and rgb()/rgba()/hsl() forms (an issue number like #9834 or #47932 is not a colour)
COLOUR = re.compile(r"#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})\b|\b(?:rgba?|hsla?)\(", re.IGNORECASE)


def colour_literals(text: str) -> list[str]:
    return COLOUR.findall(text)


def test_no_colour_literal_outside_the_palette():
    found = []
    for path in sorted((ROOT / "lab").rglob("*.py")):
        if path == PALETTE:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if colour_literals(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert found == []


def test_the_pattern_finds_colours_and_spares_issue_numbers():
    assert colour_literals('"color": "#222222"') == ["#222222"]
    assert colour_literals("border: 1px solid #444;") == ["#444"]
    assert colour_literals("fill: rgba(0, 0, 0, 0.5)") == ["rgba("]
    assert colour_literals('Report("vllm-project/vllm", "#9834", ...)') == []
    assert colour_literals('"#47932"') == []


def test_every_palette_colour_is_a_hex_colour():
    names = [n for n in dir(palette) if n.isupper() and isinstance(getattr(palette, n), str)]
    colours = [getattr(palette, n) for n in names if getattr(palette, n).startswith("#")]
    assert len(colours) >= 10
    assert all(re.fullmatch(r"#[0-9a-fA-F]{6}", c) for c in colours)


def test_a_palette_change_reaches_the_charts(monkeypatch):
    # Charts read the palette when they draw, so changing a colour in palette.py changes every chart that uses it.
    from fractions import Fraction as F

    from lab.charts import residual

    monkeypatch.setitem(palette.COLORS, "p", "#123456")
    monkeypatch.setattr(palette, "GRID", "#abcdef")
    fig = residual.pq_bars(("A", "B"), (F(1, 2), F(1, 2)), (F(1, 4), F(3, 4)))
    assert fig.data[0].marker.color == "#123456"
    assert fig.layout.yaxis.gridcolor == "#abcdef"
