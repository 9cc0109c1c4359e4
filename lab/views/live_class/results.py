"""A round's results as the teacher's dashboard and the projector draw them: the chart of the class's
predictions (the exact answer over it only after the reveal), its text equivalent, the share within 0.05, the
most common wrong pattern, and how the class moved between two rounds. Words and figures come from
lab.classroom's summaries; the pages decide where and when (before the reveal nothing here names the answer)."""

from __future__ import annotations

from typing import Literal

from lab.classroom.activities import PredictSummary, RoundChange
from lab.core.formatting import fraction_text, markdown_escape
from lab.views.ui import language
from lab.views.ui.charts import chart, figure


def predictions_alt(summary: PredictSummary, revealed: bool, label: str = "") -> str:
    """The chart's text equivalent: per value the count and mean, and the exact answer after the reveal."""
    _ = language.texts()
    described = "; ".join(
        _.ngettext("{field}: {count} prediction, mean {mean}", "{field}: {count} predictions, mean {mean}", len(v),
                   field=f, count=len(v), mean=language.number(m, ".2f"))
        for f, v, m in zip(summary.fields, summary.values, summary.means)
    )  # fmt: skip
    if revealed:
        exact = ", ".join(f"{f} = {fraction_text(e)}" for f, e in zip(summary.fields, summary.exact))
        text = _("Strip chart of the class's predictions per value with the class mean and the exact answer: "
                 "{values}; exact {exact}", values=described, exact=exact)
    else:
        text = _("Strip chart of the class's predictions per value with the class mean: {values}", values=described)
    return _("{label}: {text}", label=label, text=text) if label else text


def results_chart(
    summary: PredictSummary,
    revealed: bool,
    key: str,
    height: int | Literal["stretch"],
    text_size: int | None = None,
    label: str = "",
    legend: bool = True,
) -> None:
    """The chart of a round's predictions. ``height="stretch"``: as tall as its container (the projector sets that
    height in CSS, a share of the window's). ``legend=False``: no legend and labels without their words (two
    charts side by side on the projector, whose page says once what the marks mean)."""
    stretch = height == "stretch"
    chart(
        figure(
            "class_predictions_figure",
            summary.fields,
            summary.values,
            summary.means,
            summary.exact if revealed else None,
            None if stretch else height,
            text_size,
            legend,
        ),
        key,
        predictions_alt(summary, revealed, label),
        height="stretch" if stretch else "content",
    )


def percent(share) -> str:
    """A share as a whole percentage, as the page's language writes it."""
    return language.number(float(share), ".0%")


def within_text_short(summary: PredictSummary) -> str:
    """within_text in a few words, for half a projector's width (two rounds side by side)."""
    _ = language.texts()
    within = ", ".join(f"{f} {percent(s)}" for f, s in zip(summary.fields, summary.close_share) if s is not None)
    share = percent(summary.all_close_share)
    return _("**Within 0.05:** {share} on every value ({values})", share=share, values=within)


def pattern_text_short(summary: PredictSummary) -> str:
    """pattern_text in a few words, for half a projector's width."""
    _ = language.texts()
    if summary.pattern:
        return _("**Wrong pattern:** {pattern} ({count} of {total})", pattern=markdown_escape(_(summary.pattern)),
                 count=summary.pattern_count, total=summary.submitted)
    return _("**Wrong pattern:** none detected")


PER_VALUE_UP_TO = 9  # more values: the share within 0.05 is said for every value together only (a projector's line)


def within_text(summary: PredictSummary, per_value: bool = True) -> str:
    """**Within 0.05 of the exact answer:** … (markdown; names the answer's closeness, so after the reveal only
    on a projected screen). ``per_value``: each value's share too (up to PER_VALUE_UP_TO values)."""
    _ = language.texts()
    share = percent(summary.all_close_share)
    if not per_value or len(summary.fields) > PER_VALUE_UP_TO:
        return _("**Within 0.05 of the exact answer:** {share} of the class on every value.", share=share)
    within = ", ".join(f"{f}: {percent(s)}" for f, s in zip(summary.fields, summary.close_share) if s is not None)
    return _("**Within 0.05 of the exact answer:** {share} of the class on every value ({values}).", share=share,
             values=within)


def pattern_text(summary: PredictSummary, looked_for: bool = True) -> str:
    """The lab's diagnosis of the round: the most common wrong pattern among the predictions not within 0.05.
    ``looked_for``: when none is found, name the patterns looked for (the projector, short of room, does not)."""
    _ = language.texts()
    if summary.pattern:
        return _("**Most common wrong pattern:** {pattern} ({count} of {total}).",
                 pattern=markdown_escape(_(summary.pattern)), count=summary.pattern_count, total=summary.submitted)
    searched = markdown_escape("; ".join(_(name) for name in summary.looked_for))
    if looked_for and searched:
        return _("**Most common wrong pattern:** none detected (looked for: {patterns}).", patterns=searched)
    return _("**Most common wrong pattern:** none detected.")


def change_text(change: RoundChange, later: int) -> str:
    """How the students who voted in both rounds moved (markdown)."""
    _ = language.texts()
    if not change.both:
        return _("**Round 1 → Round 2:** nobody has voted in both rounds yet.")
    return _(
        "**Round 1 → Round {later}:** {toward} of the {both} students who voted in both rounds moved toward the "
        "exact answer ({away} moved away, {same} stayed as far).",
        later=later, toward=change.toward, both=change.both, away=change.away, same=change.same,
    )
