#!/usr/bin/env bash
# Install TWEAK Table Companion on Raspberry Pi OS (Bookworm or newer), from this checkout.
#
#   sudo hardware/install-pi.sh [--dry-run] [--user NAME] [--port PORT] [--hostname NAME]
#
# Idempotent: every step checks first and changes nothing that is already right, so running it
# twice changes nothing. --dry-run prints each step and what it would do, and changes nothing
# (it runs on any Linux machine, which is how it is tested off a Pi).
set -euo pipefail

APP=$(cd "$(dirname "$0")/.." && pwd)
RUN_USER=${SUDO_USER:-${USER:-pi}}
PORT=8000
HOSTNAME_WANTED=tweak
DRY_RUN=0
UNIT=/etc/systemd/system/tweak-companion.service
# onnxruntime 1.21.0's aarch64 wheel was reported to die with "Illegal instruction" on a Pi 4
ONNXRUNTIME_PI="onnxruntime==1.20.1"
APT_PACKAGES=(python3-venv python3-pip python3-picamera2 python3-libcamera libcamera-apps-lite avahi-daemon libgl1)

usage() {
  sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
}

while [ $# -gt 0 ]; do
  case "$1" in
    --dry-run) DRY_RUN=1 ;;
    --user) RUN_USER=$2; shift ;;
    --port) PORT=$2; shift ;;
    --hostname) HOSTNAME_WANTED=$2; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "install-pi.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

step() { printf '==> %s\n' "$*"; }
run() {
  # run a command, or only show it in a dry run
  if [ "$DRY_RUN" = 1 ]; then printf '    would run: %s\n' "$*"; else "$@"; fi
}
ok() { printf '    already done: %s\n' "$*"; }

if [ "$DRY_RUN" = 0 ] && [ "$(id -u)" != 0 ]; then
  echo "install-pi.sh: run it with sudo (or try --dry-run first)" >&2
  exit 1
fi
case "$PORT" in ''|*[!0-9]*) echo "install-pi.sh: --port must be a number, not '$PORT'" >&2; exit 2 ;; esac
HOME_DIR=$(getent passwd "$RUN_USER" | cut -d: -f6 || true)
if [ -z "$HOME_DIR" ]; then
  if [ "$DRY_RUN" = 1 ]; then HOME_DIR=/home/$RUN_USER; else
    echo "install-pi.sh: no user '$RUN_USER' (use --user)" >&2; exit 2
  fi
fi

step "1/6 system packages: ${APT_PACKAGES[*]}"
missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -eq 0 ]; then ok "all installed"; else
  run apt-get update
  run apt-get install -y "${missing[@]}"
fi

step "2/6 virtual environment with system site packages (picamera2 comes from apt): $APP/.venv"
if [ -x "$APP/.venv/bin/python" ] && grep -q "include-system-site-packages = true" "$APP/.venv/pyvenv.cfg" 2>/dev/null; then
  ok "$APP/.venv"
else
  run sudo -u "$RUN_USER" python3 -m venv --system-site-packages "$APP/.venv"
fi

step "3/6 the project and $ONNXRUNTIME_PI"
want="$(cat "$APP/pyproject.toml") $ONNXRUNTIME_PI"
stamp="$APP/.venv/.installed-pi"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then ok "installed"; else
  run sudo -u "$RUN_USER" "$APP/.venv/bin/pip" install -q "$ONNXRUNTIME_PI" -e "$APP"
  if [ "$DRY_RUN" = 0 ]; then printf '%s' "$want" > "$stamp"; fi
fi

step "4/6 mDNS name: http://$HOSTNAME_WANTED.local:$PORT"
if [ "$(hostname)" = "$HOSTNAME_WANTED" ]; then ok "hostname $HOSTNAME_WANTED"; else
  run hostnamectl set-hostname "$HOSTNAME_WANTED"
  run sed -i "s/^127\.0\.1\.1.*/127.0.1.1\t$HOSTNAME_WANTED/" /etc/hosts
fi
if systemctl is-enabled --quiet avahi-daemon 2>/dev/null; then ok "avahi-daemon enabled"; else
  run systemctl enable --now avahi-daemon
fi

step "5/6 systemd unit: $UNIT"
data_dir="$HOME_DIR/.local/share/tweak"
if [ -d "$data_dir" ]; then ok "$data_dir"; else
  run install -d -o "$RUN_USER" -g "$RUN_USER" "$data_dir"
fi
unit_text=$(sed -e "s|@USER@|$RUN_USER|g" -e "s|@HOME@|$HOME_DIR|g" -e "s|@APP@|$APP|g" -e "s|@PORT@|$PORT|g" \
  "$APP/hardware/tweak-companion.service")
if [ -f "$UNIT" ] && [ "$(cat "$UNIT")" = "$unit_text" ]; then ok "unit up to date"; else
  if [ "$DRY_RUN" = 1 ]; then
    printf '    would write %s:\n' "$UNIT"
    printf '%s\n' "$unit_text" | sed 's/^/      /'
  else
    printf '%s\n' "$unit_text" > "$UNIT"
  fi
  run systemctl daemon-reload
fi

step "6/6 start at boot, restart on failure"
if systemctl is-enabled --quiet tweak-companion 2>/dev/null; then ok "enabled"; else
  run systemctl enable tweak-companion
fi
run systemctl restart tweak-companion

step "done: open http://$HOSTNAME_WANTED.local:$PORT on a phone on the same network"
step "the referee PIN is in the log: journalctl -u tweak-companion | grep PIN"
