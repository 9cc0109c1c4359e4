"""Predict-then-reveal checks shared by the page and browser tests: every shipped one-step scenario's answers,
derived by hand (not by the lab's code), and a search of a screen's text for any rendering of them.

A screen before its reveal may show p and q, so a value equal to some p(x) or q(x) cannot be searched for as a
number (one-hot-draft's r(B) = 1/2 is also its p(A)); such a value is searched for only as a statement
("r(B) = 1/2", "Z = 1/2"). Every other answer value is searched for in every rendering a page uses: 3/4, 0.75,
0.750, .75, 75%, 75 %.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction as F


@dataclass(frozen=True)
class HandAnswer:
    tokens: tuple[str, ...]
    p: tuple[F, ...]
    q: tuple[F, ...]
    r: tuple[F, ...]
    z: F

    @property
    def alpha(self) -> F:
        return 1 - self.z

    @property
    def accepted(self) -> tuple[F, ...]:
        return tuple(min(a, b) for a, b in zip(self.p, self.q))


def _f(*values) -> tuple[F, ...]:
    return tuple(F(v) for v in values)


# By hand: excess = max(0, p - q) per token, Z = its sum, r = excess / Z.
ANSWERS = {
    # excess (0, 3/10, 1/10): Z = 2/5, r = (0, 3/4, 1/4)
    "bernoulli-residual": HandAnswer(("A", "B", "C"), _f("1/10", "3/5", "3/10"), _f("1/2", "3/10", "1/5"),
                                     _f(0, "3/4", "1/4"), F(2, 5)),
    # excess = p: Z = 1, r = p
    "disjoint-support": HandAnswer(("A", "B", "C", "D"), _f("1/2", "1/2", 0, 0), _f(0, 0, "1/4", "3/4"),
                                   _f("1/2", "1/2", 0, 0), F(1)),
    # excess (0, 0, 1/5, 1/10): Z = 3/10, r = (0, 0, 2/3, 1/3)
    "draft-misses-support": HandAnswer(("A", "B", "C", "D"), _f("2/5", "3/10", "1/5", "1/10"),
                                       _f("3/5", "2/5", 0, 0), _f(0, 0, "2/3", "1/3"), F(3, 10)),
    # in twentieths: p (4,3,3,2,2,2,2,2), q (6,1,2,4,1,3,0,3), excess (0,2,1,0,1,0,2,0): Z = 6/20
    "eight-words": HandAnswer(("the", "a", "cat", "dog", "sat", "ran", "on", "mat"),
                              _f("1/5", "3/20", "3/20", "1/10", "1/10", "1/10", "1/10", "1/10"),
                              _f("3/10", "1/20", "1/10", "1/5", "1/20", "3/20", 0, "3/20"),
                              _f(0, "1/3", "1/6", 0, "1/6", 0, "1/3", 0), F(3, 10)),
    # p - 1/3 = (2/3, 1/6, -7/6) * 10^-6: Z = 5/6 * 10^-6 = 1/1200000, r = (4/5, 1/5, 0)
    "near-equality": HandAnswer(("A", "B", "C"), _f("0.333334", "0.3333335", "0.3333325"), _f("1/3", "1/3", "1/3"),
                                _f("4/5", "1/5", 0), F(1, 1200000)),
    # min (1/4, 1/8, 1/4): alpha = 5/8; excess (1/4, 1/8, 0): Z = 3/8, r = (2/3, 1/3, 0)
    "pet-words": HandAnswer(("cat", "dog", "fish"), _f("1/2", "1/4", "1/4"), _f("1/4", "1/8", "5/8"),
                            _f("2/3", "1/3", 0), F(3, 8)),
    # excess (0, 1/4, 1/4): Z = 1/2, r = (0, 1/2, 1/2)
    "one-hot-draft": HandAnswer(("A", "B", "C"), _f("1/2", "1/4", "1/4"), _f(1, 0, 0), _f(0, "1/2", "1/2"), F(1, 2)),
    # excess (1/4, 0, 0, 1/4): Z = 1/2, r = (1/2, 0, 0, 1/2)
    "partial-zeros": HandAnswer(("A", "B", "C", "D"), _f("1/2", 0, "1/4", "1/4"), _f("1/4", "1/4", "1/2", 0),
                                _f("1/2", 0, 0, "1/2"), F(1, 2)),
}
NO_REJECTION = {"equal-distributions"}  # Z = 0: p = q, no residual (alpha = 1)


def renderings(value: F) -> list[re.Pattern]:
    """Every way a page writes ``value``: the fraction, its decimal (any number of trailing zeros, with or without
    the leading 0, or the first three significant digits of a repeating one) and its percentage."""
    value = F(value)
    patterns = [rf"(?<![\d/.]){value.numerator}/{value.denominator}(?![\d/])"] if value.denominator != 1 else []
    decimal = f"{float(value):.12g}"
    if "e" in decimal:  # 8.33333333333e-07: its first three digits, before an exponent
        patterns.append(rf"{re.escape(decimal[:4])}\d*\s?(e|×\s?10)")
    elif "." in decimal:
        whole, digits = decimal.split(".")
        lead = "0?" if whole == "0" else whole
        if len(digits) > 6:  # repeating: 1/6 is written 0.1666…, 0.167 or 0.17
            shown = {f"{float(value):.{n}f}" for n in (2, 3)} | {f"{whole}.{digits[:3]}"}
            shown -= {"0.00", "0.000", "1.00", "1.000"}  # rounded to a bound: not a statement of this value
            for text in sorted(shown):
                body = re.escape(text)
                patterns.append(r"(?<![\d.])" + ("0?" + body[1:] if text.startswith("0.") else body) + r"\d*")
        else:
            patterns.append(rf"(?<![\d.]){lead}\.{digits}0*(?![\w])")  # not a format such as %{y:.4g}
        percent = value * 100
        if percent.denominator == 1:
            patterns.append(rf"(?<![\d.]){percent.numerator}(\.0+)?\s?%")
    return [re.compile(p) for p in patterns]


def statements(answer: HandAnswer) -> list[re.Pattern]:
    """Statements of an answer whatever its value: "Z = ...", "α = ...", "r(B) = ...", "r = (...)"."""
    return [
        re.compile(r"\bZ\s*=\s*[\d.]"),
        re.compile(r"(α|alpha)\s*=\s*[\d.]"),
        re.compile(r"\br\([^()]*\)\s*=\s*[\d.]"),
        re.compile(r"\br\s*=\s*[(\d.]"),
        re.compile(r"Z\s*[·×*]\s*r\([^()]*\)\s*=\s*[\d.]"),
        re.compile(r"success p\s*=\s*0?\.\d"),
    ]


def secret_values(answer: HandAnswer, asked: tuple[str, ...] | None = None) -> set[F]:
    """The answer's values a screen before the reveal must not show as numbers: r of the asked tokens, Z and α,
    except 0, 1 and values a screen shows anyway as some p or q."""
    asked = answer.tokens if asked is None else asked
    values = {r for t, r in zip(answer.tokens, answer.r) if t in asked} | {answer.z, answer.alpha}
    return values - {F(0), F(1)} - set(answer.p) - set(answer.q)


def leaks(text: str, answer: HandAnswer, asked: tuple[str, ...] | None = None) -> list[str]:
    """Every rendering of the answer found in ``text`` (empty when the screen gives nothing away)."""
    found = [m.group(0) for pattern in statements(answer) for m in pattern.finditer(text)]
    for value in secret_values(answer, asked):
        found += [m.group(0) for pattern in renderings(value) for m in pattern.finditer(text)]
    return found


def states(text: str, value: F) -> bool:
    """Does ``text`` state ``value`` in some rendering?"""
    return any(pattern.search(text) for pattern in renderings(value))


DRAWN_TRACE_KEYS = ("name", "x", "y", "text", "customdata", "hovertext", "hovertemplate", "texttemplate")
DRAWN_LAYOUT_KEYS = ("text", "ticktext", "tickvals")


def _layout_text(value, out: list) -> None:
    if isinstance(value, dict):
        for key, part in value.items():
            if key == "template":
                continue
            if key in DRAWN_LAYOUT_KEYS:
                out.append(part)
            else:
                _layout_text(part, out)
    elif isinstance(value, list):
        for part in value:
            _layout_text(part, out)


def _drawn(spec: dict) -> dict:
    """What a plotly figure draws as text or hover: each trace's names, values, labels and hover texts, and the
    layout's titles, annotations and tick labels (not the theme's template, ranges, sizes or colours)."""
    layout: list = []
    _layout_text(spec.get("layout", {}), layout)
    traces = [{k: t[k] for k in DRAWN_TRACE_KEYS if k in t} for t in spec.get("data", [])]
    return {"data": traces, "layout": layout}


def apptest_text(at) -> str:
    """Everything an AppTest run put on the page, as text: every element's message (labels, bodies, captions,
    alt texts, widget values, link targets) and every chart's drawn data (values, bar labels, hover texts,
    tick labels, titles)."""
    import json

    from google.protobuf.text_format import MessageToString

    out: list[str] = []

    def walk(node) -> None:
        children = getattr(node, "children", None)
        if children:
            for child in children.values():
                walk(child)
        elif getattr(node, "proto", None) is not None:
            proto = node.proto
            if getattr(node, "type", "") == "plotly_chart" or proto.DESCRIPTOR.name == "PlotlyChart":
                out.append(proto.alt)
                out.append(json.dumps(_drawn(json.loads(proto.spec)), ensure_ascii=False))
            elif proto.DESCRIPTOR.name == "BidiComponent":  # a component: its data, not its code (the same everywhere)
                out.append(proto.component_name + "\n" + proto.json)
            else:
                out.append(MessageToString(proto, as_utf8=True))

    walk(at._tree)
    text = "\n".join(out).replace("\\n", "\n")  # text_format writes a line break as \n
    return text.replace("\\", "")  # the escapes of text_format and of markdown_escape
