"""Finding the user's sampler: ``MODULE:FUNCTION`` (importable) or ``path/to/file.py:FUNCTION``.

Loading runs the user's module: this happens on the user's own machine, from the command line or
their own tests, never from the web app. Every problem is a :class:`SamplerLoadError` with one line
naming it (the CLI exits 2 with it), never a traceback.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
from pathlib import Path

from lab.check.watch import exception_text
from lab.core.distributions import LabInputError


class SamplerLoadError(LabInputError):
    """A sampler reference that cannot be loaded (its format, the file, the import, the attribute)."""


def split_reference(reference: str) -> tuple[str, str]:
    text = reference.strip()
    where, colon, name = text.rpartition(":")
    if not colon or not where or not name:
        raise SamplerLoadError(
            f"{text!r} is not MODULE:FUNCTION or path/to/file.py:FUNCTION (e.g. examples/correct_numpy.py:step)"
        )
    return where, name


def _import_file(path: Path):
    if not path.is_file():
        raise SamplerLoadError(f"{path}: no such file")
    digest = hashlib.sha1(str(path.resolve()).encode()).hexdigest()[:10]
    module_name = f"_lab_check_{path.stem}_{digest}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise SamplerLoadError(f"{path}: not a Python file that can be imported")
    module = importlib.util.module_from_spec(spec)
    folder = str(path.resolve().parent)
    sys.path.insert(0, folder)  # so the file can import its neighbours
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException as exc:  # the user's module: any failure is reported in one line
        sys.modules.pop(module_name, None)
        if isinstance(exc, KeyboardInterrupt):
            raise
        raise SamplerLoadError(f"importing {path} raised {exception_text(exc)}") from None
    finally:
        if sys.path and sys.path[0] == folder:
            sys.path.pop(0)
    return module


def _import_module(name: str):
    if "" not in sys.path and "." not in sys.path:
        sys.path.insert(0, "")  # the current directory, as `python -m` has it
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name and name.startswith(exc.name):
            raise SamplerLoadError(
                f"no module named {exc.name!r} (give MODULE:FUNCTION or path/to/file.py:FUNCTION)"
            ) from None
        raise SamplerLoadError(f"importing {name} raised {exception_text(exc)}") from None
    except BaseException as exc:
        if isinstance(exc, KeyboardInterrupt):
            raise
        raise SamplerLoadError(f"importing {name} raised {exception_text(exc)}") from None


def load_sampler(reference: str):
    """The callable a reference names."""
    where, name = split_reference(reference)
    if where.endswith(".py") or "/" in where or "\\" in where:
        module = _import_file(Path(where))
        shown = where
    else:
        module = _import_module(where)
        shown = where
    target = module
    for part in name.split("."):
        if not hasattr(target, part):
            defined = sorted(n for n, v in vars(module).items() if callable(v) and not n.startswith("_"))
            hint = f" (it defines: {', '.join(defined[:12])})" if defined else ""
            raise SamplerLoadError(f"{shown} has no attribute {name!r}{hint}")
        target = getattr(target, part)
    if not callable(target):
        raise SamplerLoadError(f"{shown}:{name} is a {type(target).__name__}, not a callable")
    return target
