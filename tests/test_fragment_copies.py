"""lab.views.patches.fragment_copies: the cursors' own deepcopy makes the copy the generic deepcopy makes."""

from __future__ import annotations

import copy

from streamlit.cursor import LockedCursor, RunningCursor, SparseList
from streamlit.proto.Element_pb2 import Element

from lab.views.patches import fragment_copies


def generic(value):
    """What copy.deepcopy makes without the installed __deepcopy__ (its __reduce_ex__ path)."""
    cls = type(value)
    saved = vars(cls).get("__deepcopy__")
    try:
        if saved is not None:
            delattr(cls, "__deepcopy__")
        return copy.deepcopy(value)
    finally:
        if saved is not None:
            cls.__deepcopy__ = saved


def state(cursor) -> dict:
    fields = dict(vars(cursor))
    fields["_transient_elements"] = [(i, e.SerializeToString()) for i, e in cursor.transient_elements.items()]
    return fields


def a_running_cursor() -> RunningCursor:
    cursor = RunningCursor(root_container=0, parent_path=(3, 1))
    cursor.lock_element(), cursor.lock_element()  # index 2
    element = Element()
    element.markdown.body = "transient"
    cursor.get_transient_cursor()
    cursor.transient_elements[0] = element
    return cursor


def test_the_copy_is_the_generic_copy_field_by_field_and_shares_nothing_mutable():
    fragment_copies.install()
    fragment_copies.install()  # once: a second call changes nothing
    for cursor in (a_running_cursor(), LockedCursor(root_container=1, parent_path=(0,), index=4)):
        mine, theirs = copy.deepcopy(cursor), generic(cursor)
        assert type(mine) is type(cursor)
        assert state(mine) == state(theirs) == state(cursor)
        assert mine.transient_elements is not cursor.transient_elements
    running = a_running_cursor()
    copied = copy.deepcopy(running)
    copied.transient_elements[1] = Element()
    assert len(running.transient_elements) == 1 and len(copied.transient_elements) == 2
    assert copied.transient_elements[0] is not running.transient_elements[0]  # the elements copied too
    copied.lock_element()
    assert running.index == 2 and copied.index == 3


def test_one_cursor_in_two_places_is_copied_once_as_deepcopy_does():
    fragment_copies.install()
    cursor = a_running_cursor()
    pair = copy.deepcopy({"a": cursor, "b": cursor})
    assert pair["a"] is pair["b"] and pair["a"] is not cursor


def test_an_empty_sparse_list_and_a_full_one_copy_as_the_generic_copy():
    fragment_copies.install()
    full = SparseList()
    full[3] = Element()
    for sparse in (SparseList(), full):
        mine = copy.deepcopy(sparse)
        assert type(mine) is SparseList and list(mine.items()) == list(generic(sparse).items())
        assert mine._data is not sparse._data


def test_streamlit_cursors_hold_only_fields_of_the_kinds_copied_here():
    for cursor in (a_running_cursor(), LockedCursor(root_container=0)):
        for name, value in vars(cursor).items():
            assert fragment_copies._shared(value) or isinstance(value, SparseList), name
