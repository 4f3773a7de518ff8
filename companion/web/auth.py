"""Roles and CSRF: the referee holds the PIN shown on the server's console; everyone else watches."""

from __future__ import annotations

import functools
import hmac
import secrets
from typing import Callable

from flask import abort, current_app, request, session

from .i18n import LANGUAGES


def csrf_token() -> str:
    token = session.get("csrf")
    if not token:
        token = session["csrf"] = secrets.token_urlsafe(24)
    return token


def check_csrf() -> None:
    """Every state change carries the session's token (header X-CSRF-Token or form field)."""
    if request.method in ("GET", "HEAD", "OPTIONS"):
        return
    sent = request.headers.get("X-CSRF-Token") or request.form.get("csrf_token", "")
    expected = session.get("csrf", "")
    if not expected or not hmac.compare_digest(str(sent), str(expected)):
        abort(403, description="missing or wrong CSRF token: reload the page")


def is_referee() -> bool:
    return bool(session.get("referee"))


def check_pin(pin: str) -> bool:
    return hmac.compare_digest(str(pin).strip(), str(current_app.config["REFEREE_PIN"]))


def referee_required(view: Callable) -> Callable:
    @functools.wraps(view)
    def wrapped(*args, **kwargs):
        if not is_referee():
            abort(403, description="only the referee can do this: log in with the PIN shown on the server")
        return view(*args, **kwargs)

    return wrapped


def language() -> str:
    lang = session.get("lang")
    if lang in LANGUAGES:
        return lang
    return request.accept_languages.best_match(list(LANGUAGES), default="en") or "en"
