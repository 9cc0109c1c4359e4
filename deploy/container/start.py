"""The image's entry point: ``streamlit run server.py`` on 0.0.0.0:8501 (extra arguments are passed on, e.g.
``--server.maxUploadSize 5``), after reading the secrets.

The cookie secret (``STREAMLIT_SERVER_COOKIE_SECRET``), the database URL (``RESIDUAL_LAB_DATABASE_URL``) and the
server secret that keys the class database's counters and bans (``RESIDUAL_LAB_SECRET``) come from the
environment, or from a file named by the same variable with ``_FILE`` appended (Compose and podman secrets are
files under /run/secrets). A value still holding the manifests' placeholder is refused,
so a deployment never runs on a secret everyone can read in this repository.

The server replaces this process (exec): it is the container's main process and gets SIGTERM itself;
Streamlit then closes its sessions and exits with status 0.
"""

import os
import sys

SECRETS = ("STREAMLIT_SERVER_COOKIE_SECRET", "RESIDUAL_LAB_DATABASE_URL", "RESIDUAL_LAB_SECRET")
PLACEHOLDER = "REPLACE-ME"


def fail(message: str) -> None:
    print(f"residual-lab: {message}", file=sys.stderr)
    sys.exit(2)


for name in SECRETS:
    path = os.environ.pop(f"{name}_FILE", "")
    if path:
        try:
            with open(path, encoding="utf-8") as secret_file:
                os.environ[name] = secret_file.read().strip()
        except OSError as exc:
            fail(f"{name}_FILE: cannot read {path}: {exc.strerror}")
    if PLACEHOLDER in os.environ.get(name, ""):
        fail(f"{name} still holds the placeholder {PLACEHOLDER}: set a real value (see docs/deployment.md)")
for name in ("STREAMLIT_SERVER_COOKIE_SECRET", "RESIDUAL_LAB_SECRET"):
    if not os.environ.get(name):
        print(
            f"residual-lab: {name} is not set: fine for one replica; replicas behind one address need the same "
            "secret",
            file=sys.stderr,
        )

os.environ["FORWARDED_ALLOW_IPS"] = ""  # uvicorn believes no proxy: the app decides (docs/security.md)
command = [sys.executable, "-m", "streamlit", "run", "server.py"]
command += ["--server.address", "0.0.0.0", "--server.port", "8501", "--server.headless", "true"]
# no welcome banner: its "External URL" asks a public web service for this machine's address at every start
command += ["--logger.hideWelcomeMessage", "true"]
os.execv(sys.executable, command + sys.argv[1:])
