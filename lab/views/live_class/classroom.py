"""Class: a live class. The teacher starts a class and paces it from a dashboard; students join with the
class code and their name, and their page follows the teacher's activity. The page's entry: it picks one of its
three views from the link, each a module of its own that reads and changes the class through
lab.classroom.actions (TeacherDesk, StudentSeat), with its session keys in lab.views.live_class.session_keys:

- no class yet: lab.views.live_class.landing (join, or start a class);
- ``?code=C&teacher=TOKEN``: the teacher's private dashboard, lab.views.live_class.teacher;
- ``?code=C&student=ID``: a student's private page (reload or a new tab resumes it), lab.views.live_class.student.

``?code=C`` alone fills in the join form."""

from __future__ import annotations

from lab.views.live_class import holding
from lab.views.live_class.common import go_to
from lab.views.live_class.landing import landing
from lab.views.live_class.student import student_page
from lab.views.live_class.teacher import teacher_page
from lab.views.live_class.teacher_desk import class_view
from lab.views.ui import language
from lab.views.ui.accessibility import title


def main() -> None:
    _ = language.texts()
    title(_("Class"))
    code, student, teacher = class_view()
    if not (code or student or teacher) and (held := holding.running_class()):
        go_to(code=held[0], student=held[1])  # the menu's Class, during the student's class: their own page
    if teacher:
        teacher_page(code, teacher)
    elif student:
        student_page(code, student)
    else:
        landing(code)


main()
