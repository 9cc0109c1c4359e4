"""Live classes and saved self-study: storage and class logic (layer 2; no Streamlit).

Every function takes a SQLAlchemy engine, so the page passes ``st.connection("classroom", type="sql").engine``
and the tests pass SQLite files and PostgreSQL. The class store is in rooms (docs/architecture.md lists them):
each call returns plain data or raises :class:`lab.classroom.refusals.ClassroomError` with a message a teacher or
student can act on; a refused action writes nothing. Every query is parameterised. Secrets:

- the teacher token (192 bits, teacher_link.py) is shown once, in the teacher link; only its SHA-256 is stored.
  Every teacher action needs the class code *and* that token. New teacher link replaces it: the old one is
  refused at once, with a message saying it was replaced (the hashes of replaced tokens are kept for that).
- a student id (128 bits, keys.py) is the private part of the student's link; only its SHA-256 is stored. A
  student reads only their own submissions, and exact answers only after the reveal (answers.py).
- the display key (128 bits, keys.py) is the projector's: it reads what the class may see on the big screen
  (dashboards.projection: counts, the class's predictions, the answer after the reveal; never a name) and can
  change nothing. It is stored as it is (the dashboard shows its link again), and survives New teacher link.
"""
