"""The Exercises teacher link's secret and token: derived from the server's secret and the seed (HMAC-SHA256,
checked here from its definition), compared exactly, and the secret kept in the data folder when none is set."""

from __future__ import annotations

import base64
import hashlib
import hmac
import stat

import pytest

from lab.classroom import secret
from lab.teaching.exports import TEACHER_PARAM, is_teacher_token, teacher_token, teacher_url


def by_definition(key: bytes, seed: int) -> str:
    digest = hmac.new(key, f"residual-lab exercises teacher v1 seed={seed}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:18]).decode()


def test_the_token_is_the_hmac_of_the_seed():
    key = b"0123456789abcdef0123"
    assert teacher_token(key, 7) == by_definition(key, 7) and len(teacher_token(key, 7)) == 24
    assert teacher_token(key, 7) != teacher_token(key, 8) != teacher_token(b"another secret, 20 chr", 8)
    assert is_teacher_token(key, 7, by_definition(key, 7))
    for wrong in ("", None, by_definition(key, 8), by_definition(key, 7)[:-1], by_definition(key, 7) + "x", "é" * 24):
        assert not is_teacher_token(key, 7, wrong)
    url = teacher_url("http://lab.example:8501/", 7, 4, "zeros", "TOKEN")
    assert url == f"http://lab.example:8501/exercises?seed=7&count=4&level=zeros&{TEACHER_PARAM}=TOKEN"


def test_the_secret_comes_from_the_environment_or_a_private_file(tmp_path, monkeypatch):
    monkeypatch.setenv("RESIDUAL_LAB_DATA", str(tmp_path))
    monkeypatch.setenv(secret.SECRET_ENV, "an operator's secret, long enough")
    assert secret.server_secret() == b"an operator's secret, long enough"
    assert not (tmp_path / secret.SECRET_FILE).exists()
    monkeypatch.setenv(secret.SECRET_ENV, "short")
    with pytest.raises(secret.SecretError, match="shorter than 16"):
        secret.server_secret()
    monkeypatch.delenv(secret.SECRET_ENV)
    made = secret.server_secret()
    path = tmp_path / secret.SECRET_FILE
    assert path.read_text().encode() == made and len(made) >= 40
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    secret._secret.cache_clear()  # a restart reads the same file: teacher links keep working
    assert secret.server_secret() == made
