"""Reading a page's link parameters: each value validated before it reaches a widget, a callback or the core.

Pure Python (no Streamlit). A page model's ``from_url(params)`` reads its parameters with the
helpers below and collects a :class:`UrlWarning` for every refused value (the parameter keeps its
default). A warning names the parameter and the reason and quotes at most a few characters of the
value, so a 1 MB parameter never becomes a 1 MB message.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from lab.core.errors import LabInputError, Said, said, said_of
from lab.core.numbers import NumberInputError, parse_number, parse_probability, parse_whole_number, shown

URL_ON_WORDS = ("1", "true", "yes", "on")
# A link parameter longer than this is refused before it is split or parsed: the longest legitimate one
# is a 26-token table of fractions (26 values of at most 250 characters each).
MAX_PARAM_LENGTH = 26 * 251


@dataclass(frozen=True)
class UrlWarning:
    """A link parameter that was refused: ``parameter`` names it, ``message`` says why (plain text)."""

    parameter: str
    message: str

    def __str__(self) -> str:
        return self.message


class UrlValueError(LabInputError):
    """One link value that cannot be used (raised inside the helpers, turned into a UrlWarning)."""


def flag(params: Mapping[str, str], name: str) -> bool:
    """A yes/no parameter: on for 1/true/yes/on, off for anything else (never refused)."""
    raw = params.get(name)
    return raw is not None and len(raw) <= 8 and raw.strip().lower() in URL_ON_WORDS


def text_param(params: Mapping[str, str], name: str, field: str | None = None) -> str | None:
    """The raw text of a parameter (None when absent); refuses a value too long to be meant (``field`` names it in
    the message, the parameter's name by default)."""
    raw = params.get(name)
    if raw is None or not isinstance(raw, (str, list)):  # a widget's own value (a number) is checked by its reader
        return raw
    if isinstance(raw, list):  # ?x=1&x=2: Streamlit hands over the last value; be explicit anyway
        raw = raw[-1] if raw else ""
    if len(raw) > MAX_PARAM_LENGTH:
        raise UrlValueError(said("{name}: the value is {length} characters long (at most {limit})", name=field or name,
                                 length=format(len(raw), ","), limit=format(MAX_PARAM_LENGTH, ",")))
    return raw


class UrlReader:
    """Collects warnings while a model reads its parameters; each ``read_*`` returns ``default`` when the
    parameter is absent or refused."""

    def __init__(self, params: Mapping[str, str], source: str = "link", labels: Mapping[str, str] | None = None):
        self.params = params
        self.source = source  # "link" for URL parameters, "control" for widget values
        self.labels = labels or {}  # parameter -> the control's label, so a message says which control it is
        self.warnings: list[UrlWarning] = []

    def field(self, name: str) -> str:
        """How a message names the parameter: ``count (Number of problems)`` (the label in the page's language)."""
        return said("{name} ({label})", name=name, label=Said(self.labels[name])) if name in self.labels else name

    def refuse(self, name: str, message: str) -> None:
        if self.source == "link":
            self.warnings.append(UrlWarning(name, said("Ignored in the link: {problem}", problem=message)))
        else:
            self.warnings.append(UrlWarning(name, said("Not applied: {problem}", problem=message)))

    def raw(self, name: str) -> str | None:
        try:
            return text_param(self.params, name, self.field(name))
        except UrlValueError as exc:
            self.refuse(name, said_of(exc))
            return None

    def whole(self, name: str, low: int, high: int, default: int) -> int:
        raw = self.raw(name)
        if raw is None:
            return default
        try:
            return parse_whole_number(raw, self.field(name), low, high)
        except NumberInputError as exc:
            self.refuse(name, said_of(exc))
            return default

    def probability(self, name: str, default):
        """A value from 0 to 1, exactly (a Fraction), or ``default``."""
        raw = self.raw(name)
        if raw is None:
            return default
        try:
            return parse_probability(raw, self.field(name))
        except NumberInputError as exc:
            self.refuse(name, said_of(exc))
            return default

    def number(self, name: str, low, high, default):
        """An exact number from ``low`` to ``high`` (a Fraction), or ``default``."""
        raw = self.raw(name)
        if raw is None:
            return default
        try:
            value = parse_number(raw, self.field(name))
        except NumberInputError as exc:
            self.refuse(name, said_of(exc))
            return default
        if not low <= value <= high:
            self.refuse(name, said("{name}: {value} is outside {low} to {high}", name=self.field(name),
                                   value=shown(str(raw)), low=low, high=high))
            return default
        return value

    def whole_range(self, name: str, low: int, high: int, default: tuple[int, int]) -> tuple[int, int]:
        """A range slider's (start, end): whole numbers from ``low`` to ``high``, start <= end."""
        raw = self.params.get(name)
        if raw is None:
            return default
        try:
            start, end = (parse_whole_number(v, self.field(name), low, high) for v in raw)
        except (NumberInputError, TypeError, ValueError):
            self.refuse(name, said("{name}: {value} is not a range from {low} to {high}", name=self.field(name),
                                   value=shown(str(raw)), low=low, high=high))
            return default
        if start > end:
            self.refuse(name, said("{name}: {value} starts after it ends", name=self.field(name),
                                   value=shown(str(raw))))
            return default
        return start, end

    def text(self, name: str, default: str) -> str:
        """Free text (read by its own parser later), or ``default`` when absent or too long."""
        raw = self.raw(name)
        return default if raw is None else str(raw)

    def choice(self, name: str, options: Sequence[str], default: str) -> str:
        raw = self.raw(name)
        if raw is None:
            return default
        if not isinstance(raw, str) or raw not in options:
            raw = str(raw)
            self.refuse(name, said("{name}: {value} is not one of the choices; showing {default}",
                                   name=self.field(name), value=shown(raw), default=repr(default)))
            return default
        return raw

    def flag(self, name: str) -> bool:
        return flag(self.params, name)


def url_text(value) -> str:
    """A model value as its link text: a Fraction as the decimal a slider shows, others as written."""
    if isinstance(value, Fraction):
        return format(float(value), ".10g")
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


@dataclass(frozen=True)
class Control:
    """One control of a page, declared once: the model field it sets, its widget key (which is also its link
    parameter), the label a person reads, and how its value is read and checked (its kind and range). The page
    model's PARAMS, LABELS and reading, the widget the view draws, and the tests of hostile links and forged
    widget values all come from it."""

    field: str
    key: str
    label: str
    # "choice", "whole", "probability" (0 to 1, exact), "number" (exact, low to high), "range" (whole numbers,
    # start to end), "text" (read by its own parser later) or "flag" (on or off)
    kind: str
    options: Callable[[], Sequence[str]] | None = None  # a choice's options
    low: int | Fraction = 0
    high: int | Fraction | str = 0  # the maximum; a str names a limit the page passes in (what it can compute)
    named: str | None = None  # how a message names the control, when shorter than its label
    link: str | None = None  # its link parameter, when the page writes its link by hand under another name
    each: bool = False  # one widget per item (a token's slider): keys key_0, key_1, ... (widget_key)

    @property
    def param(self) -> str:
        """The link parameter: the widget's key, unless the page writes its link by hand (``link``)."""
        return self.link or self.key

    def widget_key(self, item: int = 0) -> str:
        return f"{self.key}_{item}" if self.each else self.key

    def maximum(self, limits: Mapping[str, int]) -> int | Fraction:
        return limits[self.high] if isinstance(self.high, str) else self.high

    def read(self, reader: UrlReader, default, limits: Mapping[str, int]):
        if self.kind == "choice":
            return reader.choice(self.key, self.options(), default)
        if self.kind == "probability":
            return reader.probability(self.key, default)
        if self.kind == "number":
            return reader.number(self.key, self.low, self.maximum(limits), default)
        if self.kind == "range":
            return reader.whole_range(self.key, self.low, self.maximum(limits), default)
        if self.kind == "text":
            return reader.text(self.key, default)
        if self.kind == "flag":
            return reader.flag(self.key)
        high = self.maximum(limits)
        return reader.whole(self.key, self.low, high, min(default, high))


class PageModel:
    """Base of the page models whose widgets carry their own link state (``bind="query-params"``).

    A subclass is a dataclass whose fields all have defaults, with ``PARAMS`` mapping each field to its
    URL parameter (which is also the widget's key) and a ``read_fields`` that validates every parameter;
    or it declares its ``CONTROLS`` once, and PARAMS, LABELS and ``read_fields`` follow from them."""

    PARAMS: dict[str, str] = {}
    LABELS: dict[str, str] = {}  # URL parameter -> the control's label (for messages)
    CONTROLS: tuple[Control, ...] = ()
    IN_LINK = True  # its controls are in the page's link (False: a page without link state)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.CONTROLS:
            cls.PARAMS = {c.field: c.key for c in cls.CONTROLS}
            cls.LABELS = {c.key: c.named or c.label for c in cls.CONTROLS}

    @classmethod
    def control(cls, field: str) -> Control:
        return next(c for c in cls.CONTROLS if c.field == field)

    @classmethod
    def from_url(cls, params: Mapping, source: str = "link", **limits) -> tuple[PageModel, list[UrlWarning]]:
        """The state a link (or the widgets' values) describes; a refused value keeps its default and is named."""
        read = UrlReader(params, source, cls.LABELS)
        return cls(**cls.read_fields(read, cls(), **limits)), read.warnings

    @classmethod
    def read_fields(cls, read: UrlReader, defaults: PageModel, **limits) -> dict:
        """Field name -> its value read from ``read`` (``defaults``: the value of an absent or refused one)."""
        if not cls.CONTROLS:
            raise NotImplementedError
        return {c.field: c.read(read, getattr(defaults, c.field), limits) for c in cls.CONTROLS}

    def to_url(self) -> dict[str, str]:
        """The parameters away from their defaults (what the bound widgets write into the link)."""
        default = type(self)()
        return {
            param: url_text(getattr(self, name))
            for name, param in self.PARAMS.items()
            if getattr(self, name) != getattr(default, name)
        }

    def reset(self) -> None:
        """Back to the defaults, in place."""
        default = type(self)()
        for name in self.PARAMS:
            setattr(self, name, getattr(default, name))
