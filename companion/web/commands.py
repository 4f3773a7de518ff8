"""``tweak serve``: the dashboard on a production WSGI server (waitress)."""

from __future__ import annotations

import argparse
import os
import socket
import sys

# A live phone's stream holds a server thread (waitress is a thread pool); threads are cheap while
# they wait, so there are enough for 200+ phones, and a few are never given to streams.
SERVE_THREADS = 240
REFEREE_THREADS = 16


def bound_malloc() -> bool:
    """glibc keeps big freed buffers (camera pictures) in its heaps instead of handing them back,
    one heap a thread: a fixed mmap threshold and two heaps keep the server ~50 MiB smaller
    (``benchmarks/phones.py``; the picture work itself runs on one thread, ``vision.Vision.run``).
    Call it before any thread starts; False where the C library is not glibc."""
    import ctypes

    try:
        libc = ctypes.CDLL("libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    m_mmap_threshold, m_arena_max = -3, -8  # (malloc.h)
    return bool(mallopt(m_arena_max, 2)) and bool(mallopt(m_mmap_threshold, 1 << 20))


def _lan_address() -> str:
    """The address phones on the same network can reach (no packet is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 1))
            return probe.getsockname()[0]
        except OSError:
            return "127.0.0.1"


def serve(args: argparse.Namespace) -> int:
    import signal

    bound_malloc()
    import segno
    import waitress

    from . import create_app, get_service
    from .virtual import VirtualTable
    from .vision import vision_of

    config = {"DATABASE": args.db} if args.db else {}
    if args.pin:
        from .checks import weak_pin

        problem = weak_pin(args.pin)
        if problem:
            print(
                f"tweak serve: --pin: a weak PIN ({problem}): give 6 or more digits, not repeated or in a run "
                "(or leave --pin out for a random one)",
                file=sys.stderr,
            )
            return 2
        config["REFEREE_PIN"] = args.pin
    if args.threads <= REFEREE_THREADS:
        print(f"tweak serve: --threads {args.threads}: give more than {REFEREE_THREADS}", file=sys.stderr)
        return 2
    config["STREAM_LIMIT"] = args.threads - REFEREE_THREADS
    app = create_app(config)
    if args.camera is not None:
        from .camera import CameraService

        # a missing or failing camera is reported on the dashboard and retried, never fatal
        opener = None
        if args.camera == "virtual-round" or args.camera.startswith("virtual-round:"):
            from .table import VirtualRoundCamera  # the camera referee without a camera: bots play

            try:
                seed = int(args.camera.split(":", 1)[1]) if ":" in args.camera else 0
            except ValueError:
                print(f"tweak serve: --camera {args.camera!r}: write virtual-round:SEED", file=sys.stderr)
                return 2
            opener = lambda spec: VirtualRoundCamera(get_service(app), seed)  # noqa: E731
        camera = vision_of(app).camera = CameraService(args.camera, opener).start()
        # matches set up "refereed from the camera" are followed by the move inference
        vision_of(app).table = table_referee(app).start(camera)
    elif not args.no_virtual:
        VirtualTable(get_service(app), interval=args.interval).start()
    host = _lan_address() if args.host in ("0.0.0.0", "") else args.host
    url = f"http://{host}:{args.port}/"
    app.config["PUBLIC_URL"] = url
    print(f"TWEAK Table Companion: {url}")
    print(f"Referee PIN: {app.config['REFEREE_PIN']}")
    if args.camera is None:
        print("Camera: none" + ("" if args.no_virtual else ", the virtual table plays a demo match"))
    else:
        print(f"Camera: {args.camera} (its state is on the dashboard; calibrate at {url}calibrate)")
    segno.make(url, error="m").terminal(compact=True)
    sys.stdout.flush()
    hub = get_service(app).hub

    def stop(signum, frame) -> None:
        # open live streams end first (waitress waits for its threads, a stream's for minutes);
        # then waitress stops as on Ctrl-C. systemd's stop (SIGTERM) takes the same way out.
        hub.close()
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    waitress.serve(
        app,
        host=args.host,
        port=args.port,
        threads=args.threads,
        # every open connection may be a phone's live stream: room for a crowd, and a read-ahead
        # so that a phone that leaves mid-stream is noticed (waitress.client_disconnected)
        connection_limit=max(100, 4 * args.threads),
        channel_request_lookahead=1,
        channel_timeout=600,
        ident="tweak",
        clear_untrusted_proxy_headers=True,
    )
    return 0


def table_referee(app):
    """The camera referee of ``app``: its scanner and saved calibration, loaded when needed."""
    from . import get_service
    from .table import TableReferee
    from .vision import vision_of

    def scanner():
        with app.app_context():
            return vision_of(app).scanner()

    def zones():
        from scanner.geometry.calibration import CalibrationError, load_calibration

        path = app.config["CALIBRATION"]
        try:
            return load_calibration(path) if os.path.exists(path) else None
        except CalibrationError:
            return None  # the calibration page says what is wrong with it

    return TableReferee(get_service(app), scanner, zones)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve", help="the dashboard for phones (main job)")
    p.add_argument("--host", default=os.environ.get("TWEAK_HOST", "0.0.0.0"))
    p.add_argument("--port", type=int, default=int(os.environ.get("TWEAK_PORT", "8000")))
    p.add_argument("--db", default=os.environ.get("TWEAK_DB"), help="SQLite file (default: instance/tweak.sqlite3)")
    p.add_argument("--pin", default=os.environ.get("TWEAK_PIN"), help="referee PIN (default: random, printed)")
    p.add_argument(
        "--camera",
        default=os.environ.get("TWEAK_CAMERA"),
        help="picamera, a camera index, a video, virtual:SEED, or virtual-round (bots play each camera "
        "match's round on the virtual table, to try the camera referee; default none: the virtual table plays)",
    )
    p.add_argument("--no-virtual", action="store_true", help="do not start the virtual table's demo match")
    p.add_argument("--interval", type=float, default=2.0, help="seconds between virtual-table moves")
    p.add_argument(
        "--threads",
        type=int,
        default=SERVE_THREADS,
        help=f"server threads: a live phone's stream holds one; {REFEREE_THREADS} are kept for the referee",
    )
    p.set_defaults(run=serve)
