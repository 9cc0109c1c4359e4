"""The copies Streamlit makes of the page's cursors at every fragment, made without the generic deep copy
(installed by lab.views.patches.install_all).

Streamlit 1.67 deep-copies the run's cursors and its container stack when a fragment is drawn, and again when it
reruns on its own (``streamlit/runtime/fragment.py``). A cursor is a few numbers and a list of transient elements
(usually empty), but ``copy.deepcopy`` takes the general path for it (``__reduce_ex__``, a copied ``__dict__``):
a large part of what drawing an empty fragment costs. :func:`install` gives the cursor classes
a ``__deepcopy__`` that makes the same copy directly: the numbers and the tuple of ints shared, as deepcopy shares
them, everything else deep-copied. tests/test_fragment_copies.py compares it field by field with the generic copy,
and fails if a Streamlit upgrade adds a field of another kind.
"""

from __future__ import annotations

from copy import deepcopy

from streamlit.cursor import LockedCursor, RunningCursor, SparseList

_SHARED = (int, str, bool, type(None))  # what deepcopy returns as it is


def _shared(value) -> bool:
    kind = type(value)
    return kind in _SHARED or (kind is tuple and all(type(v) in _SHARED for v in value))


def _copy_cursor(self, memo):
    new = object.__new__(type(self))
    memo[id(self)] = new
    new.__dict__.update(
        {name: value if _shared(value) else deepcopy(value, memo) for name, value in self.__dict__.items()}
    )
    return new


def _copy_sparse_list(self, memo):
    new = object.__new__(SparseList)
    memo[id(self)] = new
    new._data = deepcopy(self._data, memo) if self._data else {}
    return new


def install() -> None:
    """Give the cursor classes their copy, once per process (later calls do nothing)."""
    if "__deepcopy__" in vars(RunningCursor):
        return
    for cls in (RunningCursor, LockedCursor):
        cls.__deepcopy__ = _copy_cursor
    SparseList.__deepcopy__ = _copy_sparse_list
