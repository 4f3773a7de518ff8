"""The deck enrolment wizard's JSON API: cards under the camera read and proposed, the referee's
labels confirmed, the deck profile built and used from then on."""

from __future__ import annotations

import os
from pathlib import Path

from flask import Blueprint, abort, current_app, jsonify

from .auth import check_csrf, referee_required
from .checks import json_body, json_object, optional_object
from .vision import vision_of

bp = Blueprint("enrolment", __name__, url_prefix="/api")
EDGE_HIDDEN = (
    "its edge hardly shows against the table (glare, or a table the card's colour): "
    "skip it and read it again out of direct light, on a darker surface"
)
SMALLER = (
    "its outline is much smaller than the deck's other cards (a panel printed on the card?): "
    "skip it, or read it again alone on a plain surface"
)
OTHER_SHAPE = (
    "its outline is not the shape of the deck's other cards (cut short at a band printed on the card?): "
    "skip it, or read it again alone on a plain surface"
)
BURNT = (
    "part of it is burnt white (glare, or too much light): its print is lost there; "
    "skip it and read it again out of direct light"
)
bp.before_request(check_csrf)


def _warning(
    edge: float,
    area: float,
    usual: float | None,
    burnt: float = 0.0,
    usual_burnt: float | None = None,
    aspect: float | None = None,
    usual_aspect: float | None = None,
) -> str | None:
    """Why a card read by the wizard is best left out, or None. ``aspect``: its outline's long side
    / short; every card of a deck has one shape, which the fixed camera sees alike (``usual_aspect``,
    ``AdaptSettings.enrol_shape_apart``, as ``tweak enrol`` looks again at such a photo).

    >>> _warning(1.0, 9000, 9000, aspect=1.86, usual_aspect=1.40) == OTHER_SHAPE
    True
    >>> _warning(1.0, 9000, 9000, aspect=1.45, usual_aspect=1.40) is None
    True
    """
    from scanner.read.adapt import SETTINGS
    from scanner.read.profile import burnt_beyond_usual

    if edge < SETTINGS.enrol_edge_shown:
        return EDGE_HIDDEN
    if usual is not None and area < SETTINGS.enrol_smaller * usual:
        return SMALLER
    if aspect is not None and usual_aspect is not None and abs(aspect / usual_aspect - 1) > SETTINGS.enrol_shape_apart:
        return OTHER_SHAPE
    if burnt_beyond_usual(burnt, usual_burnt):
        return BURNT
    return None


def _usual(confirmed: list[float], read: list[float]) -> float | None:
    """The usual card's area (or share burnt white, or shape) on the fixed camera: the confirmed
    cards', else those just read."""
    import statistics

    from scanner.read.adapt import SETTINGS

    for areas in (confirmed, read):
        if len(areas) >= SETTINGS.enrol_usual_from:
            return statistics.median(areas)
    return None


def _kept_folder() -> Path:
    from scanner.read.kept import kept_folder

    return kept_folder(current_app.config["PROFILE"])


@bp.get("/enrol")
def enrol_status():
    """The reads confirmed and not saved yet (``pending``), the cards kept beside the saved profile
    that the next *Save* learns from again (``kept``), and the saved profile's labels (``saved``)."""
    from scanner.read.kept import kept_counts
    from scanner.read.profile import ProfileError, load_profile

    state = vision_of().enrolment
    path = current_app.config["PROFILE"]
    saved: dict = {}
    error = vision_of().profile_error
    try:
        kept = kept_counts(_kept_folder())
    except ProfileError as err:
        kept, error = {}, str(err)
    try:  # (apart: the cards kept are shown, to learn again from, when the profile cannot be read)
        if os.path.exists(path):
            saved = load_profile(Path(path)).photos
    except ProfileError as err:
        error = str(err)
    return jsonify(
        {
            "pending": {label: len(c) for label, c in state["crops"].items()},
            "kept": kept,
            "saved": saved,
            "error": error,
        }
    )


@bp.post("/enrol/capture")
@referee_required
def enrol_capture():
    """Read the cards under the camera (one, or a whole colour spread out) and propose labels; a
    card whose outline shows no edge (glare, a table the card's colour) is flagged to be skipped,
    as ``tweak enrol`` refuses such a photo: learned from a wrong outline, its card reads as another.
    So is an outline much smaller than the deck's usual card (the camera is fixed): a printed panel,
    an outline of another shape than the deck's cards (cut short where a printed band begins),
    and a card partly burnt white (glare: its print lost there, ``profile.burnt_share``).
    ``{"sheet": 1 | 2}``: the cards lie in the rows of that sheet of the standard layout
    (``scanner.read.layout``), and each is proposed as its place's label (rows that do not hold
    the sheet's counts are refused, before any card is named)."""
    import cv2

    from scanner.find.detect import aspect_ratio
    from scanner.read.adapt import card_image
    from scanner.read.layout import STANDARD_LAYOUT, LayoutError
    from scanner.read.profile import burnt_share, edge_shown

    sheet = optional_object().get("sheet")
    if sheet is not None and (isinstance(sheet, bool) or sheet not in range(1, len(STANDARD_LAYOUT) + 1)):
        abort(400, description=f"sheet: {sheet!r} is not a sheet of the standard layout (1 or 2), or leave it out")
    camera = vision_of().camera
    frame = camera.latest() if camera is not None else None
    if frame is None:
        return jsonify(
            {"error": "no_picture", "message": "the enrolment wizard needs a camera picture"}
        ), 409  # (a state, not a server fault)
    scanner = vision_of().scanner()
    if scanner is None:
        return jsonify(
            {"error": "no_scanner", "message": "the recognition models are not installed"}
        ), 409  # (a state, not a server fault)
    if sheet is None:
        cards = vision_of().run(scanner.scan, frame).cards
    else:
        try:
            cards = vision_of().run(_laid_out, frame, STANDARD_LAYOUT[sheet - 1], scanner)
        except LayoutError as err:
            return jsonify({"error": "layout", "message": str(err)}), 422
    if not cards:
        return jsonify({"error": "no_card", "message": "no card seen: lay the cards face up, apart"}), 422
    state = vision_of().enrolment
    state["last"] = vision_of().run(lambda: [card_image(frame, c.corners) for c in cards])
    shown = [edge_shown(frame, c.corners) for c in cards]
    burnt = [burnt_share(frame, c.corners) for c in cards]
    areas = [float(cv2.contourArea(c.corners.astype("float32"))) for c in cards]
    aspects = [aspect_ratio(c.corners) for c in cards]
    state["last_areas"], state["last_burnt"], state["last_aspects"] = areas, burnt, aspects
    usual = _usual(state["areas"], areas)
    usual_burnt = _usual(state["burnt"], burnt)
    usual_aspect = _usual(state["aspects"], aspects)
    return jsonify(
        {
            "cards": [
                {
                    "index": i,
                    "proposed": c.label,
                    "confidence": round(c.confidence, 3),
                    "next": [n for n, _ in c.candidates[1:3]],
                    # the outline found, shown on the picture before the referee accepts it
                    "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in c.corners],
                    "edge_shown": round(edge, 2),
                    "area_share": None if usual is None else round(area / usual, 2),  # of the usual card's area
                    "burnt_share": round(white, 3),  # of its inner part burnt white (``burnt_share``)
                    "aspect": round(aspect, 2),  # its outline's long side / short
                    "warning": _warning(edge, area, usual, white, usual_burnt, aspect, usual_aspect),
                }
                for i, (c, edge, area, white, aspect) in enumerate(zip(cards, shown, areas, burnt, aspects))
            ],
            "size": [int(frame.shape[1]), int(frame.shape[0])],
        }
    )


def _laid_out(frame, rows, scanner) -> list:
    """The cards of the standard layout's rows, each as a sure reading of its place's label."""
    from scanner.read.layout import name_cards
    from scanner.scan import ScannedCard

    named = name_cards(frame, [list(row) for row in rows], scanner, "the camera's picture")
    return [ScannedCard(label, quad, 1.0, None) for label, quad in named.items()]


@bp.post("/enrol/confirm")
@referee_required
def enrol_confirm():
    """The referee's labels for the cards just read (corrected where the proposal was wrong)."""
    from scanner.labels import LABELS

    data = json_body()
    labels = data.get("labels") if isinstance(data, dict) else None
    state = vision_of().enrolment
    if not isinstance(labels, list) or len(labels) != len(state["last"]):
        abort(400, description=f"send {{labels: [...]}} with one label per card read ({len(state['last'])})")
    for i, label in enumerate(labels):
        if label is not None and label not in LABELS:
            abort(400, description=f"labels[{i}]: {label!r} is not a card label")
    read = zip(state["last"], state["last_areas"], state["last_burnt"], state["last_aspects"], labels)
    for crop, area, burnt, aspect, label in read:
        if label is not None:  # None: leave this card out
            state["crops"].setdefault(label, []).append(crop)
            state["areas"].append(area)
            state["burnt"].append(burnt)
            state["aspects"].append(aspect)
    state["last"], state["last_areas"], state["last_burnt"], state["last_aspects"] = [], [], [], []
    return jsonify({"pending": {label: len(c) for label, c in state["crops"].items()}})


@bp.post("/enrol/forget")
@referee_required
def enrol_forget():
    """Forget one card's reads, kept and confirmed (a washed-out read, a wrong label): the next
    *Save* learns the deck without them."""
    from scanner.labels import LABELS
    from scanner.read.kept import forget_cards

    label = json_object("{label: a card label}").get("label")
    if label not in LABELS:
        abort(400, description=f"label: {label!r} is not a card label")
    state = vision_of().enrolment
    pending = len(state["crops"].pop(label, []))
    kept = forget_cards(_kept_folder(), label)
    return jsonify({"forgotten": pending + kept})


@bp.post("/enrol/save")
@referee_required
def enrol_save():
    """Build the deck profile from the kept cards and those confirmed since, and use it from now
    on. Labels of the saved profile that no kept card or new read has (a profile made by ``tweak
    enrol``, or before cards were kept) would be dropped: refused unless ``replace`` is true."""
    from scanner.labels import LABELS
    from scanner.read.kept import keep_cards, kept_cards
    from scanner.read.profile import ProfileError, enrol_cards, load_profile

    data = optional_object()
    deck = data.get("deck", "dashboard")
    if not isinstance(deck, str) or len(deck) > 80:
        abort(400, description="deck must be a name of at most 80 characters")
    replace = data.get("replace", False)
    if not isinstance(replace, bool):
        abort(400, description="replace must be true or false")
    state = vision_of().enrolment
    folder = _kept_folder()
    try:
        kept = kept_cards(folder)
    except ProfileError as err:
        return jsonify({"error": "kept_unreadable", "message": str(err)}), 409  # (a state, not a server fault)
    pending = state["crops"]
    cards = {label: kept.get(label, []) + pending.get(label, []) for label in LABELS}
    cards = {label: images for label, images in cards.items() if images}
    if not cards:
        abort(409, description="no confirmed card yet: read and confirm some cards first")
    path = Path(current_app.config["PROFILE"])
    if path.exists() and not replace:
        try:
            dropped = [label for label in load_profile(path).photos if label not in cards]
        except ProfileError:
            dropped = []  # (a profile that cannot be read has nothing to keep)
        if dropped:
            return jsonify(
                {
                    "error": "would_drop",
                    "labels": dropped,
                    "message": f"the saved profile has {len(dropped)} labels with no kept read "
                    f"({', '.join(dropped[:6])}{'...' if len(dropped) > 6 else ''}): saving would drop them. "
                    "Read those cards again, or save anyway to replace the profile",
                }
            ), 409  # (a state, not a server fault)
    scanner = vision_of().scanner()
    if scanner is None:
        return jsonify(
            {"error": "no_scanner", "message": "the recognition models are not installed"}
        ), 409  # (a state, not a server fault)
    profile = enrol_cards(scanner.classifier, cards, deck=deck, second=scanner.any_deck)
    written: list[Path] = []
    try:  # the cards, then the profile learned from them; a failed write undoes the cards
        written = keep_cards(folder, pending)
        profile.save(path)
    except OSError as err:
        for card in written:
            card.unlink(missing_ok=True)
        return jsonify(
            {"error": "not_saved", "message": f"the deck profile could not be saved ({err}): nothing was changed"}
        ), 500

    state["crops"], state["areas"], state["burnt"], state["aspects"] = {}, [], [], []
    vision_of().forget_scanner()  # the next scan uses the profile
    return jsonify({"labels": len(profile.enrolled), "missing": len(profile.missing)})
