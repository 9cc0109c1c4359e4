"""The Binomial lab's state: lab success p, n, the predicted bars, and the guide's progress.

Pure Python (no Streamlit). The page's controls live in a fragment and its link holds the predicted
bars as one comma list, so the link is written by hand (:meth:`BinomialLabModel.to_url`) rather than
by ``bind``; every parameter is validated by :meth:`from_url` before a widget sees it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache

from lab.core.binomial import N_MAX, N_MIN, BinomialInputError
from lab.core.distributions import snap_to_step, to_fraction
from lab.core.errors import Said, said, said_of
from lab.core.numbers import NumberInputError, OutOfRangeError, parse_probability, parse_whole_number, shown
from lab.i18n import N_
from lab.models.explorer import ExplorerInputError, decode_prediction, encode_prediction
from lab.models.url import Control, UrlReader, UrlWarning
from lab.teaching.worked_example import (
    DEFAULT_LAB_P,
    DEFAULT_N,
    WORKED_EXAMPLE_SCENARIO,
    GuideState,
    check_products,
    display_values,
    guide_steps,
    lab_result,
    outcome_labels,
    worked_sum,
)

# The lab's two controls, each once: widget key, label, range, and the link parameter the model writes by hand (the
# link also holds the predicted bars, one comma list under PREDICTION_PARAM, so no widget is bound to it).
LAB_P = Control("lab_p", "bl_p", N_("lab success p"), "probability", link="lab_p")
N = Control("n", "bl_n", "n", "whole", low=N_MIN, high=N_MAX, link="n", named=N_("number of trials"))
PREDICTION_PARAM = "pred"
PREDICTION_LABEL = N_("pred, the prediction of {token}")  # a refused predicted value in a link
BARS_HIDDEN_AGAIN = said("lab success p or n changed, so the bars are hidden again: predict, then Reveal.")


@lru_cache(maxsize=256, typed=True)
def _worked_sum(lab_p: float, n: int):
    """The guide's worked sum for the lab at (lab success p, n), the same for every student: made once per process
    (the guide is checked at the end of every change, and each time the worked example's scenario file was looked up
    on disk and its residual computed again in fractions). The result is frozen, so sessions share it."""
    exact = display_values(lab_result(lab_p, n))
    return worked_sum(dict(zip(outcome_labels(n), exact)) if n == 1 else {}, WORKED_EXAMPLE_SCENARIO)


@dataclass
class BinomialLabModel:
    CONTROLS = (LAB_P, N)
    IN_LINK = True

    lab_p: float = float(DEFAULT_LAB_P)
    n: int = DEFAULT_N
    preds: list[float] = field(default_factory=lambda: [0.0] * (DEFAULT_N + 1))
    revealed: tuple | None = None  # the (lab p, n) that was revealed
    clean_start: bool = True  # opened with no prediction and nothing revealed, or reset since (the guide's step 1)
    products_typed: bool = False  # the guide's Z·r(B) and Z·r(C), typed and exactly right
    summed: bool = False  # the guide's final sum is shown

    def reset(self) -> None:
        """Back to the defaults: a clean lab (the guide's first step)."""
        self.__init__(clean_start=True)

    def set_n(self, n: int) -> None:
        """A new n: new outcomes, new empty predictions."""
        if n != self.n:
            self.n, self.preds = n, [0.0] * (n + 1)

    def set_controls(self, lab_p: float, n: int) -> str | None:
        """The controls' checked values. A new n means new, empty predictions; bars revealed for other values are
        hidden again (with the guide's products and sum). Returns what to tell the user, or None."""
        self.set_n(n)
        self.lab_p = lab_p
        if self.revealed is not None and not self.is_revealed:
            self.revealed = None
            self.products_typed = self.summed = False  # they were for the bars revealed
            return BARS_HIDDEN_AGAIN
        return None

    def set_predictions(self, values: list) -> None:
        """The predicted bars, one per outcome; a value that is not a probability counts as 0."""
        self.preds = [read_probability(v) or 0.0 for v in values[: self.n + 1]]

    def reveal(self) -> None:
        """Show the exact bars for the lab as it is now."""
        self.revealed = (self.lab_p, self.n)

    @property
    def is_revealed(self) -> bool:
        return self.revealed == (self.lab_p, self.n)

    def show_sum(self) -> None:
        """The guide's sum, without typing the products (the student asked for it)."""
        self.summed = True

    def guide(self):
        """The worked-example guide for the lab as it is: (the worked sum, the checklist's steps)."""
        worked = _worked_sum(self.lab_p, self.n)
        state = GuideState(
            self.clean_start,
            self.lab_p,
            self.n,
            self.n == 1 and any(self.preds),
            self.is_revealed,
            self.products_typed,
            self.summed,
        )
        return worked, guide_steps(state, worked.z)

    def sum_ready(self, steps) -> bool:
        """The lab shows the worked example's bars: lab success p = 0.75, n = 1, revealed (steps 2 and 4)."""
        return steps[1].done and steps[3].done

    def guide_shown(self) -> tuple:
        """Everything the guide panel shows, to compare: its steps, and the worked sum once it is shown."""
        worked, steps = self.guide()
        return tuple(steps), self.summed, worked if steps[-1].done and self.sum_ready(steps) else None

    def type_products(self, typed: Mapping[str, str]) -> list[str]:
        """The guide's Z·r(B) and Z·r(C) as typed, checked exactly; right, the sum follows. Returns the messages."""
        check = check_products(typed, self.guide()[0])
        if check.right:
            self.products_typed = self.summed = True
        return list(check.messages)

    @classmethod
    def from_url(cls, params: Mapping, reveal_allowed: bool = True) -> tuple[BinomialLabModel, list[UrlWarning]]:
        """The state a link describes, validated like typed input; refused values are named, not applied."""
        read, model = UrlReader(params, labels={c.param: c.named or c.label for c in cls.CONTROLS}), cls()
        raw = read.raw(LAB_P.param)
        if raw is not None:
            try:
                value = parse_probability(raw, read.field(LAB_P.param))
            except OutOfRangeError:
                read.refuse(LAB_P.param, said("{name}: {value} is outside [0, 1]", name=read.field(LAB_P.param),
                                              value=shown(raw)))
            except NumberInputError as exc:
                read.refuse(LAB_P.param, said_of(exc))
            else:
                snapped = snap_to_step(value)
                if snapped != value:
                    read.refuse(LAB_P.param, said("{name} = {value} rounded to {rounded}", name=Said(LAB_P.label),
                                                  value=raw, rounded=f"{float(snapped):.2f}"))
                model.lab_p = float(snapped)
        raw = read.raw(N.param)
        if raw is not None:
            try:
                model.set_n(parse_whole_number(raw, read.field(N.param), N.low, N.high, any_spelling=True))
            except NumberInputError as exc:
                read.refuse(N.param, said_of(exc))
        raw = read.raw(PREDICTION_PARAM)
        if raw is not None:
            try:
                labels = outcome_labels(model.n)
                model.preds = [
                    float(snap_to_step(v))
                    for v in decode_prediction(raw, labels, True, PREDICTION_LABEL)
                ]
            except ExplorerInputError as exc:
                read.refuse(PREDICTION_PARAM, said_of(exc))
        if read.flag("inspect") and reveal_allowed:  # presenting: reveal only on the button
            model.revealed = (model.lab_p, model.n)
        # a link with predictions or a revealed state did not start clean, unless it says it was reset
        model.clean_start = read.flag("reset") or not any(
            k in params for k in (PREDICTION_PARAM, "inspect", "sum", "typed")
        )
        model.products_typed = read.flag("typed") and reveal_allowed
        model.summed = (read.flag("sum") or model.products_typed) and reveal_allowed
        return model, read.warnings

    def to_url(self) -> dict[str, str]:
        desired = {}
        if to_fraction(self.lab_p) != DEFAULT_LAB_P:
            desired[LAB_P.param] = f"{self.lab_p:.2f}"
        if self.n != DEFAULT_N:
            desired[N.param] = str(self.n)
        if any(self.preds):
            desired[PREDICTION_PARAM] = encode_prediction(self.preds)
        if self.revealed == (self.lab_p, self.n):
            desired["inspect"] = "1"
        if self.clean_start and (any(self.preds) or self.revealed or self.summed):
            desired["reset"] = "1"  # without it, a link with predictions reads as not started clean
        if self.products_typed:
            desired["typed"] = "1"
        elif self.summed:
            desired["sum"] = "1"
        return desired


def read_probability(value) -> float | None:
    """A lab success p or predicted bar from a widget: a number from 0 to 1, or None."""
    try:
        return float(parse_probability(value, LAB_P.label))
    except NumberInputError:
        return None


def read_n(value) -> int | None:
    """The n control's value: a whole number from 1 to 26 (not True or False), or None."""
    if isinstance(value, bool):
        return None
    try:
        return parse_whole_number(value, N.label, N.low, N.high, any_spelling=True)
    except (NumberInputError, BinomialInputError):
        return None
