"""The image's HEALTHCHECK (and the podman pods' exec probes): exit 0 when the app on this container answers
``/_stcore/health`` with ``ok`` within 4 s, else 1 (liveness). ``healthcheck.py ready``: exit 0 when ``/_ready``
says the class database answers (readiness; lab.views.serving.readiness). Python's standard library only: the image has
no curl. ``healthcheck.py [ready] [PORT]``."""

import sys
import urllib.request

args = sys.argv[1:]
READY = bool(args) and args[0] == "ready"
rest = args[1:] if READY else args
PORT = rest[0] if rest else "8501"
PATH, EXPECTED = ("/_ready", b'{"database":"ok"}') if READY else ("/_stcore/health", b"ok")

try:
    with urllib.request.urlopen(f"http://127.0.0.1:{PORT}{PATH}", timeout=4) as response:
        sys.exit(0 if response.read().strip().replace(b" ", b"") == EXPECTED else 1)
except OSError as exc:
    print(f"health check failed: {exc}", file=sys.stderr)
    sys.exit(1)
