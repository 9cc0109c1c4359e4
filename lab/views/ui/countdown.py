"""A vote's countdown on a class screen (the teacher's dashboard, the projector, a student's phone): the time left,
counted down in the browser once a second (no script run per second), and, when it reaches zero, one rerun of what
holds it, which reads the class again and draws the vote locked (the store refuses answers from then on by itself:
lab.classroom.answers).

The server sends the seconds left when it drew the element, never a clock time: a phone whose clock is wrong
counts the same. The text is a ``role="timer"`` (not read out each second); a polite live region beside it says
"30 seconds left", "10 seconds left" and "Time is up" once each.
"""

from __future__ import annotations

from collections.abc import Callable

from lab.views.serving import component_code

_HTML = (
    '<p class="rl-countdown"><span role="timer" data-timer=""></span></p>'
    '<p class="rl-sr" aria-live="polite" data-said=""></p>'
)
_CSS = """
.rl-countdown { margin: 0 0 0.5rem; font-size: var(--rl-countdown-size, 1.25rem); font-weight: 700;
  font-variant-numeric: tabular-nums; }
.rl-countdown[data-ended] { color: inherit; }
.rl-sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap;
  margin: -1px; padding: 0; border: 0; }
"""
# The element is drawn again (new data) on every run of what holds it: the deadline is taken from that data, each
# call stops the previous call's ticking. At zero the trigger fires once per drawing, after a random wait of up to a
# second: every phone of a class reaches zero at the same moment, and their reruns are spread over that second.
_JS = """
export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  if (parentElement.__labCountdownStop) parentElement.__labCountdownStop();
  const timer = parentElement.querySelector("[data-timer]");
  const said = parentElement.querySelector("[data-said]");
  const box = parentElement.querySelector(".rl-countdown");
  if (!timer || !data) return undefined;
  const deadline = Date.now() + Math.max(0, data.left_ms);
  const marks = [30, 10];
  let spoken = null, fired = false, tick = null, fire = null;
  const words = (s) => `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
  const show = () => {
    const left = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
    if (left > 0) {
      timer.textContent = `${data.label} ${words(left)}`;
      box.removeAttribute("data-ended");
      const mark = marks.find((m) => left <= m && left > m - 1.5);
      if (mark !== undefined && spoken !== mark && data.left_ms > mark * 1000) {
        spoken = mark; said.textContent = `${mark} seconds left.`;
      }
      return;
    }
    timer.textContent = data.ended;
    box.setAttribute("data-ended", "");
    if (spoken !== 0) { spoken = 0; said.textContent = data.ended; }
    clearInterval(tick);
    if (!fired && data.rerun) {
      fired = true;
      fire = setTimeout(() => setTriggerValue("ended", Date.now()), Math.random() * 1000);
    }
  };
  show();
  tick = setInterval(show, 250);
  const stop = () => { clearInterval(tick); clearTimeout(fire); };
  parentElement.__labCountdownStop = stop;
  return stop;
}
"""
_component = component_code.component("residual_lab.countdown", html=_HTML, css=_CSS, js=_JS, isolate_styles=False)

LABEL = "Time left to vote:"
ENDED = "Time is up: the vote is locked."


def countdown(seconds_left: float, key: str, *, rerun: bool = True, on_end: Callable[[], None] | None = None) -> None:
    """The countdown of a vote with ``seconds_left`` (0: it has ended, and says so). ``rerun``: when it reaches zero,
    rerun what holds this element (a fragment, else the page), once; never when drawn at zero (that rerun would draw
    it at zero again)."""
    _component(
        key=key,
        data={
            "left_ms": int(max(0.0, seconds_left) * 1000), "label": LABEL, "ended": ENDED,
            "rerun": rerun and seconds_left > 0,
        },  # fmt: skip
        on_ended_change=on_end or (lambda: None),
    )
