"""Every patch of a library's internals, in one room, each gated so that a library upgrade can cost speed but never
take the app down.

A patch here changes a library's private code at run time (Streamlit's, plotly's, the interpreter's collector). Each
is declared once in :data:`PATCHES`: the module, the library versions it was written against, and the private names
it needs. :func:`install_all` (called by app.py on every run and by server.py at its start; each patch is decided
once per process) installs a patch only when every library is inside its range and every name it needs is there;
otherwise, or when installing it raises, the patch is skipped with one log line naming it, and the app runs on the
library's own code.

``RESIDUAL_LAB_PATCHES=stock`` turns every speed patch off (the ones that only make a page cheaper); the two
that keep a page correct stay on while their library allows them: the guard against widget values a browser never
sends, and the rerun of a press the server does not know (docs/architecture.md, "Patches"). CI runs the pages'
tests and one browser smoke test of every page that way (tests/test_patches.py), so an upgrade can only cost speed.
"""

from __future__ import annotations

import importlib
import logging
import os
from dataclasses import dataclass
from importlib import metadata
from types import MappingProxyType

from packaging.version import InvalidVersion, Version

MODE_ENV = "RESIDUAL_LAB_PATCHES"  # "stock": no speed patch; unset or "all": every patch its library allows
STOCK = "stock"
OFF_ENV = "RESIDUAL_LAB_PATCHES_OFF"  # speed patches left out by name, comma-separated (bench/bench_patches.py)

_LOG = logging.getLogger("residual_lab.patches")

_SESSION_STATE = "streamlit.runtime.state.session_state"


@dataclass(frozen=True)
class Patch:
    """One patch: ``module`` in this folder (its ``install()`` applies it), the library ``versions`` it was written
    against (distribution: (lowest, first refused)), the private ``needs`` it reads or replaces ("module:attr.attr"),
    and whether it is ``speed`` only (off in stock mode). ``after_pages``: installed on the app's first run, once the
    pages' code is imported (not by server.py's early call)."""

    module: str
    versions: tuple[tuple[str, str, str], ...]
    needs: tuple[str, ...]
    speed: bool
    after_pages: bool = False


_STREAMLIT_1_67 = (("streamlit", "1.67.0", "1.68"),)

PATCHES: tuple[Patch, ...] = (
    Patch(
        "widget_guard",
        _STREAMLIT_1_67,
        (f"{_SESSION_STATE}:WStates.__getitem__", f"{_SESSION_STATE}:Serialized", f"{_SESSION_STATE}:Value"),
        speed=False,
    ),
    Patch(
        "fragment_fallback",
        _STREAMLIT_1_67,
        (
            "streamlit.runtime.app_session:AppSession.request_rerun",
            "streamlit.runtime.app_session:AppSession.has_fragment",
        ),
        speed=False,
    ),
    Patch(
        "config_cache",
        _STREAMLIT_1_67,
        (
            "streamlit.config:get_option",
            "streamlit.config:_set_option",
            "streamlit.config:get_options_for_section",
            "streamlit.config:_on_config_parsed",
            "streamlit.runtime.app_session:_populate_config_msg",
            "streamlit.runtime.app_session:_populate_theme_msg",
        ),
        speed=True,
    ),
    Patch(
        "state_lookup",
        _STREAMLIT_1_67,
        (
            f"{_SESSION_STATE}:SessionState.__contains__",
            f"{_SESSION_STATE}:SessionState._compact_state",
            f"{_SESSION_STATE}:SessionState._get_widget_id",
            f"{_SESSION_STATE}:SessionState._getitem",
            f"{_SESSION_STATE}:SessionState._keys",
            f"{_SESSION_STATE}:_is_internal_key",
            "streamlit.runtime.state.common:is_element_id",
            "streamlit.runtime.state.common:is_keyed_element_id",
            *(
                f"streamlit.elements.widgets.{name}:get_session_state"
                for name in ("number_input", "slider", "selectbox", "radio", "text_widgets", "time_widgets")
            ),
        ),
        speed=True,
    ),
    Patch(
        "fragment_copies",
        _STREAMLIT_1_67,
        ("streamlit.cursor:RunningCursor", "streamlit.cursor:LockedCursor", "streamlit.cursor:SparseList"),
        speed=True,
    ),
    Patch(
        "fragment_pool", _STREAMLIT_1_67, ("streamlit.runtime.parallel_coordinator:ThreadPoolExecutor",), speed=True
    ),
    Patch(
        "plotly_json",
        (("plotly", "6.0", "8"), *_STREAMLIT_1_67),
        ("plotly.io:to_json", "streamlit.elements.plotly_chart:PlotlyMixin.plotly_chart"),
        speed=True,
    ),
    Patch("gc_settings", (), ("gc:freeze", "gc:set_threshold"), speed=True, after_pages=True),
)

_decided: dict[str, str] = {}  # module -> "installed", or why it was skipped
_OUTCOMES = MappingProxyType(_decided)  # what install_all returns: a read-only view, no copy per run


def mode() -> str:
    """"stock" when RESIDUAL_LAB_PATCHES says so (any case, spaces ignored), else "all"."""
    return STOCK if os.environ.get(MODE_ENV, "").strip().lower() == STOCK else "all"


def _missing_name(need: str) -> str | None:
    """``need`` ("module:attr.attr") when it cannot be found, else None."""
    module_name, _, path = need.partition(":")
    try:
        found = importlib.import_module(module_name)
        for part in path.split("."):
            found = getattr(found, part)
    except (ImportError, AttributeError):
        return need
    return None


def _outside_range(versions) -> str | None:
    """Why the installed libraries are outside ``versions``, or None when every one is inside."""
    for library, lowest, refused in versions:
        try:
            installed = Version(metadata.version(library))
        except (metadata.PackageNotFoundError, InvalidVersion):
            return f"{library} is not installed"
        if not Version(lowest) <= installed < Version(refused):
            return f"{library} {installed} is outside {lowest} to {refused} (exclusive)"
    return None


def left_out() -> set[str]:
    """The speed patches RESIDUAL_LAB_PATCHES_OFF names (a bench's way to measure one patch's share)."""
    return {name.strip() for name in os.environ.get(OFF_ENV, "").split(",") if name.strip()}


def why_not(patch: Patch, stock: bool) -> str | None:
    """Why ``patch`` is not to be installed here, or None when it is."""
    if stock and patch.speed:
        return f"{MODE_ENV}={STOCK}"
    if patch.speed and patch.module in left_out():
        return f"{OFF_ENV} names it"
    outside = _outside_range(patch.versions)
    if outside:
        return outside
    missing = [name for name in patch.needs if _missing_name(name)]
    return f"missing {', '.join(missing)}" if missing else None


def install(patch: Patch, stock: bool) -> str:
    """Install ``patch`` if its libraries allow it: "installed", or why it was skipped (logged in one line)."""
    reason = why_not(patch, stock)
    if reason is None:
        try:
            importlib.import_module(f"{__name__}.{patch.module}").install()
            return "installed"
        except Exception as exc:  # any failure of a private name: the library's own code runs instead
            reason = f"install failed: {type(exc).__name__}: {exc}"
    if not (patch.speed and (stock or patch.module in left_out())):  # skips asked for: not worth a line each
        _LOG.warning("patch %s skipped (%s): the library's own code runs", patch.module, reason)
    return f"skipped: {reason}"


def install_all(*, before_pages: bool = False) -> MappingProxyType:
    """Decide every patch once per process (later calls only add those left for after the pages' import);
    ``before_pages``: server.py's call at its start. Returns each patch's outcome so far (app.py calls this on every
    run: once every patch is decided, that is all it does)."""
    if len(_decided) == len(PATCHES):
        return _OUTCOMES
    stock = mode() == STOCK
    for patch in PATCHES:
        if patch.module in _decided or (before_pages and patch.after_pages):
            continue
        _decided[patch.module] = install(patch, stock)
    return _OUTCOMES
