"""Focus during a class (AppTest): while a joined student's class runs, another page of the lab says the class is
in progress with a link back to the student's own page, and the menu's Class page brings that page back; after
End class every page opens again. The menu itself: tests/browser/test_class_hall_browser.py."""

from __future__ import annotations

import pytest
from pagetest import open_linked_page

from lab.classroom import admission, classes
from lab.views.live_class import database

PAGE = "lab/views/live_class/classroom.py"
LAB = "lab/views/pages/binomial_lab.py"


@pytest.fixture
def data(data, monkeypatch):
    """tests/conftest.py's class database, with no second-long sharing of the class version here."""
    monkeypatch.setattr(database, "cached_class_version", lambda code: False)
    return data


def test_a_joined_students_other_pages_wait_for_the_end_of_the_class(data):
    new = classes.create_class(data)
    ann = admission.join_class(data, new.code, "Ann").student_token
    at = open_linked_page(PAGE, {"code": new.code, "student": ann})  # the student's own page holds the class
    at.switch_page(LAB).run()
    assert not at.exception
    assert any(f"Your class {new.code} is in progress" in i.value for i in at.info)
    assert not at.slider and not at.number_input  # nothing of the lab: its guide states the worked example's answer
    back = [link for link in at.get("page_link") if link.proto.label == "Back to your class"]
    assert len(back) == 1 and f"student={ann}" in back[0].proto.page + "?" + str(back[0].proto.query_string)
    at.query_params.clear()
    at.switch_page(PAGE).run()  # the menu's Class (no link parameters): the student's page again
    assert at.query_params["student"] == ann and any("You joined as Ann" in c.value for c in at.caption)
    classes.end_class(data, new.code, new.teacher_token)
    at.switch_page(LAB).run()
    assert not any("is in progress" in i.value for i in at.info) and at.number_input  # the lab is back
