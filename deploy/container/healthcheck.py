"""The image's HEALTHCHECK (and the podman pods' exec probes): exit 0 when the app on this container answers
``/_stcore/health`` with ``ok`` within 4 s, else 1. Python's standard library only: the image has no curl."""

import sys
import urllib.request

PORT = sys.argv[1] if len(sys.argv) > 1 else "8501"

try:
    with urllib.request.urlopen(f"http://127.0.0.1:{PORT}/_stcore/health", timeout=4) as response:
        sys.exit(0 if response.read().strip() == b"ok" else 1)
except OSError as exc:
    print(f"health check failed: {exc}", file=sys.stderr)
    sys.exit(1)
