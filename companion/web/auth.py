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
    if not expected or not _same(sent, expected):
        abort(403, description="missing or wrong CSRF token: reload the page")


def _same(a: object, b: object) -> bool:
    """Constant-time comparison of any two texts (non-ASCII too: compared as UTF-8 bytes)."""
    return hmac.compare_digest(str(a).encode("utf-8", "replace"), str(b).encode("utf-8", "replace"))


def is_referee() -> bool:
    """A referee session of the current generation: logging out, or starting with another PIN,
    ends every referee session made before (``SessionGeneration``)."""
    return bool(session.get("referee")) and session.get("generation") == generation().current


def check_pin(pin: str) -> bool:
    return _same(str(pin).strip(), current_app.config["REFEREE_PIN"])


def log_in() -> None:
    session["referee"] = True
    session["generation"] = generation().current


def log_out() -> None:
    """Ends this session's referee role and every other referee session (a stolen cookie too)."""
    session.pop("referee", None)
    generation().advance()


class SessionGeneration:
    """A number kept in the instance folder, in every referee session, and bumped at logout and
    whenever the server starts with another PIN: a cookie of an older generation is no longer a
    referee's. Stored with a hash of the PIN it belongs to (never the PIN)."""

    def __init__(self, path: str | None, pin: str) -> None:
        import hashlib
        import json
        import os

        self._path = path
        self._json = json
        digest = hashlib.sha256(f"tweak-pin:{pin}".encode()).hexdigest()
        try:
            with open(path or "", encoding="utf-8") as f:
                saved = json.load(f)
            number, pin_hash = int(saved["generation"]), str(saved["pin"])
        except (OSError, ValueError, KeyError, TypeError):
            number, pin_hash = 0, digest
        self.current = number + 1 if pin_hash != digest else number
        self._digest = digest
        if path:
            os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        self._save()

    def advance(self) -> None:
        self.current += 1
        self._save()

    def _save(self) -> None:
        import os

        if not self._path:  # an in-memory database: sessions live as long as the process
            return
        tmp = self._path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            self._json.dump({"generation": self.current, "pin": self._digest}, f)
        os.replace(tmp, self._path)


def generation() -> SessionGeneration:
    return current_app.extensions["tweak_sessions"]


class LoginThrottle:
    """Wrong PINs slow the next try down, per client and for everyone: a client waits
    2^(failures - PER_CLIENT_FREE) s (at most an hour) after its failures, and all clients
    together get GLOBAL_BURST wrong tries, then one more every GLOBAL_EVERY s. A 6-digit PIN
    then takes months to guess by brute force, from any number of addresses."""

    PER_CLIENT_FREE = 3
    GLOBAL_BURST = 10
    GLOBAL_EVERY = 6.0  # seconds: 10 wrong tries a minute at most, ~58 days for half the PINs

    def __init__(self, clock: Callable[[], float] | None = None) -> None:
        import threading
        import time

        self._clock = clock or time.monotonic
        self._lock = threading.Lock()
        self._clients: dict[str, tuple[int, float]] = {}  # address -> (failures, blocked until)
        self._tokens = float(self.GLOBAL_BURST)
        self._refilled = self._clock()

    def wait(self, client: str) -> float:
        """Seconds this client must wait before its next try (0: it may try now)."""
        with self._lock:
            now = self._clock()
            self._refill(now)
            until = self._clients.get(client, (0, 0.0))[1]
            waits = [until - now]
            if self._tokens < 1:
                waits.append((1 - self._tokens) * self.GLOBAL_EVERY)
            return max(0.0, *waits)

    def failed(self, client: str) -> None:
        with self._lock:
            now = self._clock()
            self._refill(now)
            self._tokens = max(0.0, self._tokens - 1)
            failures = self._clients.get(client, (0, 0.0))[0] + 1
            delay = 0.0 if failures <= self.PER_CLIENT_FREE else min(3600.0, 2.0 ** (failures - self.PER_CLIENT_FREE))
            self._clients[client] = (failures, now + delay)
            if len(self._clients) > 10_000:  # (addresses that stopped trying long ago)
                self._clients = {k: v for k, v in self._clients.items() if v[1] > now}

    def succeeded(self, client: str) -> None:
        with self._lock:
            self._clients.pop(client, None)

    def _refill(self, now: float) -> None:
        self._tokens = min(float(self.GLOBAL_BURST), self._tokens + (now - self._refilled) / self.GLOBAL_EVERY)
        self._refilled = now


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
