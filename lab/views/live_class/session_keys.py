"""Every key the Class page's views (lab/views/live_class/classroom.py and the class_* views it draws) keep in
``st.session_state``: what a run leaves for the next one, and the keys of their widgets, forms and charts. One
registry, so no two parts of the page use one key for two things, and a test or a reader finds each key here.

The values are the keys themselves (the browser tests and AppTest name widgets by them): changing one changes the
page's widget ids."""

from __future__ import annotations


class Keys:
    """The Class page's session keys; a key made per activity, problem or student is a function of it."""

    # --- what a run leaves for the next ---------------------------------------------------------------
    LIVE = "cls"  # the page's live region (lab.views.ui.accessibility.announce), the same in each of its views
    JOINED = "cls_joined"  # set by Join: the student's page then moves keyboard focus to its heading
    TEACHER_DESK = "cls_teacher"  # this tab's TeacherDesk: the address bar may not hold the token
    TEACHER_FOCUS = "cls_teacher_focus"  # after a button that leaves the page: what gets keyboard focus
    TEACHER_ERROR = "cls_teacher_error"  # a teacher action's refusal, shown in the next run
    NEW_CLASS = "cls_new_class"  # the code of the class this tab just started: its teacher link is shown open
    LINK_REPLACED = "cls_link_replaced"  # New teacher link went through: the new link is said to be new, once
    ADDRESS_ERROR = "cls_address_error"  # Use this address was refused: said in the address panel
    OUTAGE_SHOWN = "cls_outage_shown"  # the page shows an outage banner: redraw it whole once the database is back
    PENDING = "cls_pending"  # (what was sent, when, its future): a call the database did not answer in time
    PENDING_SAID = "cls_pending_said"  # what became of it (a Feedback), shown until the next press
    FEEDBACK = "cls_feedback"  # what the student's Submit came to (a Feedback), shown in the next run
    FEEDBACK_DRAWN = "cls_feedback_drawn"  # that Feedback, for the live part of the same run to draw
    ROUND_SHOWN = "cls_round_shown"  # (activity id, round) the live part last drew: what a Submit is saved for
    SUBMIT_RAN = "cls_submit_ran"  # an answer form's callback ran in this run (see submitted_without_callback)
    LAST_STATE = "cls_last_state"  # the student's state last read: drawn again while the database is down
    LAST_TOKEN = "cls_last_token"  # the student whose state LAST_STATE is
    DOWN_WORDS = "cls_down_words"  # what the student's page said of the outage it met in this run
    STUDENT_DRAWN = "cls_student_drawn"  # what the page outside its live part shows (page_state.drawn_outside)
    STUDENT_OUTSIDE = "cls_student_outside"  # what the page outside its activity part shows (the heading, ended)
    ACTIVITY_RERUN = "cls_activity_rerun"  # True while the activity part runs on its own (class_student)
    REMOVED_DRAWN = "cls_removed_drawn"  # how many of the class were removed when its live part was drawn
    HELD = "cls_focus"  # (class code, student token) of the class this session's student joined (class_focus)
    FOLLOWER = "cls_follower"  # the follow component (lab.views.live_class.follow): checks the class's version
    PAGE_REDRAW = "cls_page_redraw"  # its silent trigger outside the live part: reruns the activity part

    # --- landing: join or start -----------------------------------------------------------------------
    JOIN_FORM = "cls_join_form"
    JOIN_CODE = "cls_join_code"
    JOIN_NAME = "cls_join_name"
    JOIN_IDENTIFIER = "cls_join_identifier"
    START_FORM = "cls_start_form"
    START_NAME = "cls_start_name"
    START_ANONYMOUS = "cls_start_anonymous"
    ANONYMOUS = "cls_anonymous"  # the dashboard's toggle: students join without names

    # --- teacher: the dashboard -------------------------------------------------------------------------
    HIDE_NAMES = "cls_hide_names"
    ADDRESS_FORM = "cls_address_form"
    JOIN_ADDRESS = "cls_join_address"
    TEACHER_LINK = "cls-teacher-link"  # the teacher link's box (its copy button always shown: ACCESSIBILITY_CSS)
    LINK_SAVED = "cls_link_saved"
    NEW_LINK = "cls_new_link"
    KIND = "cls_kind"  # the open-an-activity form: predict or an assignment, and their fields
    SOURCE = "cls_source"
    SEED = "cls_seed"
    LEVEL = "cls_level"
    COUNT = "cls_count"
    OPEN = "cls_open"
    OWN_TITLE = "cls_own_title"  # the teacher's own question: its title, tokens, p and q as typed, its preview
    OWN_TOKENS = "cls_own_tokens"
    OWN_P = "cls_own_p"
    OWN_Q = "cls_own_q"
    OWN_PREVIEW = "cls_own_preview"
    PLAN_FILE = "cls_plan_file"  # a lesson plan's TOML file: on the dashboard (import) and the landing page (start)
    START_PLAN_FILE = "cls_start_plan_file"  # the landing page's: a new class runs it
    PLAN_USE = "cls_plan_use"
    NEXT_LECTURE = "cls_next_lecture"
    PLAN_ADD = "cls_plan_add"
    PLAN_DOWNLOAD = "cls_plan_download"
    TIMER = "cls_timer"  # the form's countdown for each round (seconds, 0: none)
    ADD_TIME = "cls_add_time"
    STOP_COUNTDOWN = "cls_stop_countdown"
    TEACHER_COUNTDOWN = "cls_teacher_countdown"
    STUDENT_COUNTDOWN = "cls_student_countdown"
    SHOW = "cls_show"
    VOTE_AGAIN = "cls_vote_again"
    REVEAL = "cls_reveal"
    LOCK = "cls_lock"
    UNLOCK = "cls_unlock"
    NEXT = "cls_next"
    END = "cls_end"
    SHOW_STUDENTS = "cls_show_students"
    STUDENTS_PAGE = "cls_students_page"
    DOWNLOAD = "cls_download"
    # who gets in (lab.views.live_class.admission_panel)
    OPEN_JOINS = "cls_open_joins"
    LOCK_JOINS = "cls_lock_joins"
    LOCK_JOINS_FAST = "cls_lock_joins_fast"  # the same lock, pressed from the warning of joins arriving too fast
    SIZE_FORM = "cls_size_form"
    EXPECTED_SIZE = "cls_expected_size"
    NEW_JOIN_LINK = "cls_new_join_link"
    ADMIT_ALL = "cls_admit_all"
    BULK_RULE = "cls_bulk_rule"
    BULK_SECONDS = "cls_bulk_seconds"
    BULK_INCLUDE = "cls_bulk_include"
    REMOVE_MATCHED = "cls_remove_waiting"

    @staticmethod
    def use_address(i: int) -> str:
        return f"cls_use_address_{i}"

    @staticmethod
    def plan_open(number: int) -> str:
        return f"cls_plan_open_{number}"

    @staticmethod
    def plan_remove(number: int) -> str:
        return f"cls_plan_remove_{number}"

    @staticmethod
    def remove(student_id: int) -> str:
        return f"cls_remove_{student_id}"

    @staticmethod
    def let_back(student_id: int) -> str:
        return f"cls_back_{student_id}"

    @staticmethod
    def admit(student_id: int) -> str:
        return f"cls_admit_{student_id}"

    @staticmethod
    def refuse(student_id: int) -> str:
        return f"cls_refuse_{student_id}"

    @staticmethod
    def question_chart(activity_id: int) -> str:
        """The p / q chart of the dashboard's current question."""
        return f"cls_question_{activity_id}"

    @staticmethod
    def results_chart(activity_id: int, round_part: str, revealed: int) -> str:
        """A round's results chart (``round_part``: "" for a single round, "_r1", "_r2", ...): a new key after
        the reveal."""
        return f"cls_dist_{activity_id}{round_part}_{revealed}"

    # --- student --------------------------------------------------------------------------------------
    @staticmethod
    def student_question(activity_id: int) -> str:
        return f"cls_pq_{activity_id}"

    @staticmethod
    def bars(activity_id: int) -> str:
        """The bars the student draws, with their boxes and Submit (lab.views.ui.bar_predictor): the same in every round
        of an activity, so a new round redraws only the live part."""
        return f"cls_bars_{activity_id}"

    @staticmethod
    def truth_chart(activity_id: int) -> str:
        """The student's prediction beside the exact answer, after the reveal."""
        return f"cls_truth_{activity_id}"

    @staticmethod
    def answer_form(activity_id: int, number: int) -> str:
        return f"cls_ans_form_{activity_id}_{number}"

    @staticmethod
    def answer(activity_id: int, number: int) -> str:
        return f"cls_ans_{activity_id}_{number}"

    @staticmethod
    def answer_feedback(number: int) -> str:
        """What Check and save said of problem ``number`` (a Feedback), shown in the next run."""
        return f"cls_fb_{number}"
