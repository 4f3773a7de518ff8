"""HTML pages: the match list and set-up, a live match, joining by QR code, login, language."""

from __future__ import annotations

import os

import segno
from flask import Blueprint, current_app, flash, redirect, render_template, request, session, url_for

from . import get_service
from .auth import check_csrf, check_pin, csrf_token, is_referee, language, log_in, log_out
from .i18n import LANGUAGES, catalogue, translate
from .vision import vision_of

bp = Blueprint("pages", __name__)
bp.before_request(check_csrf)


@bp.app_context_processor
def _template_globals():
    lang = language()
    return {
        "_": lambda text: translate(text, lang),
        "lang": lang,
        "languages": LANGUAGES,
        "csrf_token": csrf_token,
        "is_referee": is_referee(),
        "strings": catalogue(lang),
    }


def _next_page() -> str:
    """Where to go back to after a form: a path on this site only (no open redirect)."""
    target = request.form.get("next", "")
    if target.startswith("/") and not target.startswith("//") and "\\" not in target:
        return target
    return url_for("pages.index")


@bp.get("/")
def index():
    has_camera = vision_of().camera is not None  # a camera attached: refereed from it by default
    return render_template(
        "index.html", matches=get_service(current_app).list(), has_camera=has_camera, setup=_camera_setup()
    )


def _camera_setup() -> list[tuple[str, str, str]]:
    """What an attached camera still needs to referee well, for the referee's match list: (what,
    action, page). Without a deck profile the shipped model reads an unknown deck poorly (the
    referee is asked most moves); a profile it cannot use (another model's) is left out."""
    vision = vision_of()
    # (the virtual table draws the project's own deck, framed as rendered: nothing to set up)
    if vision.camera is None or not is_referee() or str(getattr(vision.camera, "spec", "")).startswith("virtual"):
        return []
    needs = []
    if not os.path.exists(current_app.config["CALIBRATION"]):
        needs.append(("The camera is not calibrated yet.", "Calibrate it", url_for("pages.calibrate")))
    if not os.path.exists(current_app.config["PROFILE"]):
        needs.append(
            (
                "The camera does not know your deck yet: it will ask about most moves.",
                "Teach it your deck",
                url_for("pages.enrol"),
            )
        )
    elif vision.relearning is not None and vision.relearning.is_alive():
        needs.append(("The deck profile is being learned again for this version (a minute or so).", "", ""))
    elif vision.scanner_loaded is not None and vision.profile_error:  # (e.g. made for another model)
        needs.append(
            (
                "The saved deck profile cannot be used.",
                "Save it again (the kept reads are learned again)",
                url_for("pages.enrol"),
            )
        )
    return needs


@bp.get("/matches/<int:match_id>")
def match(match_id: int):
    live = get_service(current_app).get(match_id)  # 404 if unknown
    return render_template("match.html", match_id=match_id, name=live.name)


@bp.get("/calibrate")
def calibrate():
    """First-run calibration of a real camera: preview, mat and zones, lock and save (referee)."""
    return render_template("calibrate.html")


@bp.get("/enrol")
def enrol():
    """The deck enrolment wizard: cards under the camera, labels proposed, confirmed by a tap."""
    from scanner.labels import LABELS

    return render_template("enrol.html", labels=LABELS)


@bp.post("/login")
def login():
    throttle = current_app.extensions["tweak_logins"]
    client = request.remote_addr or "?"
    wait = throttle.wait(client)
    if wait > 0:
        flash(translate("Too many wrong PINs: try again in {seconds} s", language()).format(seconds=int(wait) + 1))
        return redirect(_next_page()), 303
    if check_pin(request.form.get("pin", "")):
        throttle.succeeded(client)
        log_in()
    else:
        throttle.failed(client)
        flash(translate("Wrong PIN", language()))
    return redirect(_next_page())


@bp.post("/logout")
def logout():
    log_out()
    return redirect(url_for("pages.index"))


@bp.post("/lang")
def set_language():
    lang = request.form.get("lang", "")
    if lang in LANGUAGES:
        session["lang"] = lang
    return redirect(_next_page())


@bp.get("/join")
def join():
    # the server's own address (set by `tweak serve`), not whatever Host header a request carries
    url = current_app.config.get("PUBLIC_URL") or request.host_url
    svg = segno.make(url, error="m").svg_inline(scale=8, dark="#111", light="#fff")
    return render_template("join.html", url=url, qr_svg=svg)


@bp.get("/manifest.webmanifest")
def manifest():
    return current_app.response_class(render_template("manifest.webmanifest"), mimetype="application/manifest+json")
