"""The base class of every input problem the lab reports to a person (a page or the CLI)."""


class LabInputError(ValueError):
    """Base class of every input problem the lab reports to a person (page or CLI)."""
