"""The server's secret: what an Exercises teacher link's token is derived from (lab.teaching.exports.teacher_token).

``RESIDUAL_LAB_SECRET`` when set (every replica of a deployment must share it: set it there); otherwise a random
secret kept in the data folder (``server-secret``, created once, readable by this user only), so a teacher link
keeps working after a restart. Never shown on a page, in a link or in a log.
"""

from __future__ import annotations

import os
import secrets
from functools import lru_cache
from pathlib import Path

from lab.classroom.db import data_dir

SECRET_ENV = "RESIDUAL_LAB_SECRET"
SECRET_FILE = "server-secret"
MIN_SECRET_CHARS = 16


class SecretError(RuntimeError):
    """The configured secret cannot be used (the message says why; it never contains the secret)."""


def _from_file(path) -> bytes:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        pass
    else:  # first start: a fresh secret (another process that lost the race reads this one)
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_urlsafe(32))
    text = path.read_text().strip()
    if len(text) < MIN_SECRET_CHARS:
        raise SecretError(f"{path} holds fewer than {MIN_SECRET_CHARS} characters: delete it to make a new secret")
    return text.encode()


@lru_cache(maxsize=4)
def _secret(env_value: str, folder: str) -> bytes:
    if env_value:
        if len(env_value) < MIN_SECRET_CHARS:
            raise SecretError(f"{SECRET_ENV} is shorter than {MIN_SECRET_CHARS} characters")
        return env_value.encode()
    path = Path(folder) / SECRET_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    return _from_file(path)


def server_secret() -> bytes:
    """The secret (read once per configuration; the file is made on first use)."""
    return _secret(os.environ.get(SECRET_ENV, "").strip(), str(data_dir()))
