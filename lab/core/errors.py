"""The base class of every input problem the lab reports to a person (a page or the CLI), and :class:`Said`, the
message it carries: English text that remembers what it was made from, so a page says it in its own language."""

from __future__ import annotations


class Said(str):
    """A message to a person: the English text itself (a ``str``, what the CLI prints and tests read), with the
    template and the values it was made from, so that a page in another language says it in that language
    (:meth:`translated`). Values may be ``Said`` themselves (a problem inside "row 2: …"), translated in turn;
    other values (a token's name, a quoted value as typed, a number) are shown as they are. Templates are whole
    sentences with named placeholders, marked for the catalogs by the name :func:`said` (lab/i18n/update.py)."""

    template: str
    values: dict

    def __new__(cls, template: str, values: dict | None = None):
        values = dict(values or {})
        self = super().__new__(cls, template.format(**values) if values else template)
        self.template = template
        self.values = values
        return self

    def __reduce__(self):  # a check's worker process sends its errors back pickled
        return (Said, (self.template, self.values))

    def translated(self, _) -> str:
        """The message in the language of ``_`` (a :class:`lab.i18n.Texts`)."""
        values = {k: v.translated(_) if isinstance(v, Said) else v for k, v in self.values.items()}
        return _(self.template, **values) if values else _(self.template)


class SaidList(Said):
    """A list of messages joined by ``separator`` (``r(B): all, r(C): half``), each said in turn in a page's language:
    a value of a :class:`Said` that is itself several messages."""

    def __new__(cls, items, separator: str = ", "):
        items = tuple(items)
        self = str.__new__(cls, separator.join(items))
        self.template, self.values, self.items, self.separator = str(self), {}, items, separator
        return self

    def __reduce__(self):
        return (SaidList, (self.items, self.separator))

    def translated(self, _) -> str:
        return self.separator.join(item.translated(_) if isinstance(item, Said) else item for item in self.items)


def said(template: str, **values) -> Said:
    """A message to a person from a marked template and its values: ``said("row {row}: {problem}", row=2,
    problem=...)``. A template that is a variable (a label marked with ``N_`` where it is defined) is translated
    too; only a literal one is extracted here."""
    return Said(template, values)


def said_of(error: BaseException | str) -> str:
    """What an error says, as its :class:`Said` when it was made from one (so it can still be translated), else as
    text."""
    if isinstance(error, BaseException):
        message = error.args[0] if len(error.args) == 1 else None
        return message if isinstance(message, Said) else str(error)
    return error


class LabInputError(ValueError):
    """Base class of every input problem the lab reports to a person (page or CLI). Its message is a :class:`Said`
    where a page shows it (:func:`said_of` gives it back)."""
