#!/usr/bin/env bash
# Set everything up and start the site on the embedded default (SQLite, in-memory channel
# layer, Celery tasks in-process, demo data loaded). Safe to run again.
#   ./start.sh              set up, then serve on http://127.0.0.1:8000 (PORT=... to change)
#   ./start.sh --setup-only set up only (used by ./test.sh and CI)
set -euo pipefail
cd "$(dirname "$0")"

PYTHON=${PYTHON:-python3}
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
  echo "Python 3.11 or newer is needed (set PYTHON=/path/to/python3.11)." >&2
  exit 1
fi

if [ ! -x .venv/bin/python ]; then
  echo "Creating the virtual environment in .venv/ ..."
  "$PYTHON" -m venv .venv
fi

# Reinstall only when the dependencies or the compiled search (setup.py) changed since the last
# successful install, or when the compiled search is missing although a C compiler is here.
stamp=.venv/.installed-$(cat pyproject.toml setup.py engine/core/families/kumo/_fastsearch.c | sha256sum | cut -c1-16)
built() { compgen -G 'engine/core/families/kumo/_fastsearch*.so' >/dev/null || ! command -v cc >/dev/null; }
if [ ! -f "$stamp" ] || ! built; then
  echo "Installing dependencies ..."
  # uv installs in parallel from its cache, several times faster than pip; pip stays the
  # fallback (KUMO_INSTALLER=pip, or wherever uv cannot be had or cannot reach the index).
  if [ "${KUMO_INSTALLER:-uv}" = uv ] \
    && { [ -x .venv/bin/uv ] || .venv/bin/python -m pip install --quiet 'uv>=0.5'; } \
    && .venv/bin/uv pip install --quiet --python .venv/bin/python -e '.[dev]'; then
    :
  else
    echo "Installing with pip instead ..."
    .venv/bin/python -m pip install --quiet --upgrade pip
    .venv/bin/python -m pip install --quiet -e '.[dev]'
  fi
  rm -f .venv/.installed-*
  touch "$stamp"
fi

if [ "${1:-}" = "--setup-only" ]; then
  exit 0
fi

.venv/bin/python manage.py migrate --noinput
# Ten tasks per domain and setting, with their optimal-search values (about half a minute),
# and on a fresh install a live demo round with the built-in baselines' verified ranked games.
.venv/bin/python manage.py load_demo --admin --round --count 10
echo
echo "The site is starting at http://127.0.0.1:${PORT:-8000}/ (admin: /admin/, user admin, password admin)."
exec .venv/bin/python manage.py runserver "127.0.0.1:${PORT:-8000}"
