"""A page model's declared controls drawn as widgets: each widget's label, key, range and starting value come from
its :class:`~lab.models.url.Control` (``CONTROLS`` in the page model), so a view names a control by its field and
a key is spelled once."""

from __future__ import annotations

from collections.abc import Mapping

from lab.views.ui.language import texts


class Widgets:
    """The widgets of ``model_cls.CONTROLS``. ``bound``: each carries its value in the link
    (``bind="query-params"``). ``limits``: the maxima the page passes in (a Control whose ``high`` names one).
    ``start``: each widget starts at the model's default (off when the page puts the value in the session first)."""

    def __init__(self, model_cls, *, bound: bool = False, limits: Mapping[str, int] | None = None, start: bool = True):
        self.control = {c.field: c for c in model_cls.CONTROLS}
        self.defaults = model_cls() if start else None
        self.bind = {"bind": "query-params"} if bound else {}
        self.limits = dict(limits or {})

    def key(self, field: str) -> str:
        return self.control[field].key

    def _value(self, field: str, convert) -> dict:
        return {} if self.defaults is None else {"value": convert(getattr(self.defaults, field))}

    def _range(self, field: str):
        """(minimum, maximum, the widget's type): floats for a probability or a number, whole numbers otherwise."""
        control = self.control[field]
        if control.kind == "probability":
            return 0.0, 1.0, float
        high = control.maximum(self.limits)
        if control.kind == "number":
            return float(control.low), float(high), float
        return control.low, high, (tuple if control.kind == "range" else int)

    def selectbox(self, place, field: str, choices=None, **options):
        """``choices``: the control's options when the page has just listed them (listing reads a folder)."""
        control = self.control[field]
        choices = list(control.options() if choices is None else choices)
        index = {} if self.defaults is None else {"index": choices.index(getattr(self.defaults, field))}
        return place.selectbox(texts()(control.label), choices, key=control.key, **index, **self.bind, **options)

    def number_input(self, place, field: str, step=1, **options):
        return self._numeric(place.number_input, field, step, options)

    def slider(self, place, field: str, step=0.01, **options):
        return self._numeric(place.slider, field, step, options)

    def _numeric(self, widget, field: str, step, options: dict):
        """A number input or a slider over the control's range (floats for a probability or a number)."""
        low, high, convert = self._range(field)
        control = self.control[field]
        return widget(
            texts()(control.label), min_value=low, max_value=high, step=step, key=control.key,
            **self._value(field, convert), **self.bind, **options,
        )  # fmt: skip

    def text_input(self, place, field: str, **options):
        control = self.control[field]
        label = texts()(control.label)
        return place.text_input(label, key=control.key, **self._value(field, str), **self.bind, **options)
