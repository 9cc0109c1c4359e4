"""The browser side of a student page's live part beside its follower (lab.views.live_class.follow): the lines it
shows, and what it tells the rest of the page. JavaScript and HTML only, as text."""

# A student page's follower is its live region too (lab.views.ui.accessibility): one element instead of two in the part
# every page of a class redraws at the same moment (docs/decisions/0002).
# The lines a student's live part shows (announce_and_follow's ``lines``), as plain text (never HTML), above its
# live regions (presentation.py's CSS shows the element only while it has lines, and never the regions).
SHOWN_HTML = '<div data-shown=""></div>'
SHOWN_FUNCTION = """
function shownLines({ data, parentElement }) {
  const box = parentElement.querySelector("[data-shown]");
  const lines = (data && data.shown) || [];
  const drawn = JSON.stringify(lines);
  if (!box || box.dataset.shown === drawn) return;
  box.dataset.shown = drawn;
  box.replaceChildren(...lines.map((line) => {
    const p = document.createElement("p");
    if (line.small) p.className = "rl-small";
    if (line.bold) {
      const strong = document.createElement("strong");
      strong.textContent = line.bold;
      p.append(strong, " ");
    }
    p.append(String(line.text || ""));
    return p;
  }));
}
"""
# What the live part tells the rest of the page when its data changes:
# - the vote closed (data.closed: {key, reason}, the reveal of a prediction, which redraws this part only): the bars
#   with that key disable their boxes and Submit and say why (lab/views/ui/assets/bar_predictor.js);
# - something the student should see (data.into_view: a new round, the reveal): this part is brought into view when
#   it is not (once per new value; not when the page is first drawn, nor while the student is typing).
TELL_FUNCTION = """
function tellPage({ data, parentElement }) {
  const closed = (data && data.closed) || null;
  const before = window.__labVoteClosed || null;
  if (JSON.stringify(closed) !== JSON.stringify(before)) {
    if (closed) window.__labVoteClosed = closed; else delete window.__labVoteClosed;
    document.dispatchEvent(new CustomEvent("rl-vote-closed"));
  }
  const mark = data && data.into_view;
  const seen = window.__labIntoView;
  window.__labIntoView = mark;
  if (!mark || seen === undefined || seen === mark) return;
  const active = document.activeElement;
  if (active && (active.tagName === "INPUT" || active.tagName === "TEXTAREA")) return;
  setTimeout(() => {
    const part = parentElement.closest("[data-testid=stVerticalBlock]") || parentElement;
    const box = part.getBoundingClientRect();
    if (box.top >= 0 && box.top < window.innerHeight * 0.6) return;  // its start is on the screen already
    const still = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    part.scrollIntoView({ block: "start", behavior: still ? "auto" : "smooth" });
  }, 300);  // after the part's new elements are laid out
}
"""
