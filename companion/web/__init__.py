"""The phone dashboard: a Flask application factory in the manner of Flask's tutorial."""

from __future__ import annotations

import contextlib
import os
import secrets
import sys
import tempfile
from typing import Any

from flask import Flask, jsonify, request
from werkzeug.exceptions import HTTPException

from ..storage import open_storage
from .auth import LoginThrottle, SessionGeneration
from .checks import BoundedInt
from .live import Hub, ServiceError
from .service import MatchService
from .vision import Vision


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Build the app. Config: DATABASE (SQLite path), REFEREE_PIN, SECRET_KEY, STREAM_TIMEOUT."""
    app = Flask(__name__, instance_relative_config=True)
    app.config.from_mapping(
        DATABASE=os.path.join(app.instance_path, "tweak.sqlite3"),
        REFEREE_PIN=None,
        SECRET_KEY=None,
        STREAM_TIMEOUT=300.0,  # a live stream ends after this; the browser reconnects by itself
        KEEPALIVE=5.0,  # also how soon a stream whose phone has left is noticed and ended
        STREAM_LIMIT=1000,  # live streams at once; `tweak serve` keeps threads for the referee below its count
        SESSION_COOKIE_SAMESITE="Lax",
        JSON_SORT_KEYS=False,
        CALIBRATION=os.path.join(app.instance_path, "calibration.json"),  # saved by the first-run calibration
        PROFILE=os.path.join(app.instance_path, "deck-profile.json"),  # saved by the enrolment wizard
    )
    if test_config:
        app.config.from_mapping(test_config)
    os.makedirs(app.instance_path, exist_ok=True)
    if app.config["DATABASE"] != ":memory:":
        os.makedirs(os.path.dirname(os.path.abspath(app.config["DATABASE"])), exist_ok=True)
    if not app.config["SECRET_KEY"]:
        app.config["SECRET_KEY"] = _instance_secret(app.instance_path)
    if not app.config["REFEREE_PIN"]:
        app.config["REFEREE_PIN"] = f"{secrets.randbelow(10**6):06d}"

    app.url_map.converters["int"] = BoundedInt
    # (beside the database: the referee sessions belong to the matches it holds)
    sessions = None if app.config["DATABASE"] == ":memory:" else app.config["DATABASE"] + ".sessions.json"
    app.extensions["tweak_sessions"] = SessionGeneration(sessions, app.config["REFEREE_PIN"])
    app.extensions["tweak_logins"] = LoginThrottle()
    storage, damage = open_storage(app.config["DATABASE"])
    if damage:
        print(f"tweak serve: {damage}", file=sys.stderr)
    app.extensions["tweak_storage_damage"] = damage
    app.extensions["tweak"] = MatchService(storage, Hub())
    app.extensions["tweak_vision"] = Vision(app.config)

    from . import api, cameras, enrolment, pages, piles

    app.register_blueprint(pages.bp)
    for area in (api, cameras, piles, enrolment):  # the JSON API, a blueprint an area
        app.register_blueprint(area.bp)

    @app.errorhandler(ServiceError)
    def _service_error(err: ServiceError):
        default = {400: "bad_request", 403: "forbidden", 404: "not_found", 409: "conflict"}.get(err.status, "error")
        body = {"error": default, "message": err.message, **err.extra}
        return jsonify(body), err.status

    @app.errorhandler(HTTPException)
    def _http_error(err: HTTPException):
        if request.path.startswith("/api/") or request.is_json:
            return jsonify({"error": err.name.lower().replace(" ", "_"), "message": err.description}), err.code
        return err

    return app


def _instance_secret(instance_path: str) -> str:
    """A secret key kept in the instance folder so sessions survive a restart.

    Servers (or test workers) starting at once must agree on one key and never read a half-written
    file: the key is written to a file of its own and linked into place, which fails if another
    process got there first; that process's whole key is then read.
    """
    path = os.path.join(instance_path, "secret_key")
    for _ in range(3):
        try:
            with open(path) as handle:
                key = handle.read().strip()
        except FileNotFoundError:
            key = ""
        if key:
            return key
        _write_secret_once(path)
    raise RuntimeError(f"tweak serve: could not keep a secret key in {path}; is the folder writable?")


def _write_secret_once(path: str) -> None:
    descriptor, draft = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".secret_key.")
    try:
        with os.fdopen(descriptor, "w") as handle:  # mkstemp makes it 0600
            handle.write(secrets.token_hex(32))
        if os.path.exists(path) and os.path.getsize(path) == 0:
            os.replace(draft, path)  # an empty key (a crash while writing one) is renewed
            return
        with contextlib.suppress(FileExistsError):  # another process's key won
            os.link(draft, path)
    finally:
        if os.path.exists(draft):
            os.unlink(draft)


def get_service(app: Flask) -> MatchService:
    return app.extensions["tweak"]
