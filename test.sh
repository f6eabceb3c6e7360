#!/usr/bin/env bash
# Run the whole test suite twice, side by side: on the embedded default (SQLite, in-memory channel layer,
# in-process Celery) and on the production stack (PostgreSQL, Redis channel layer, a real
# Celery worker). Needs PostgreSQL and Redis; by default the local ones:
#   TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/kumo
#   TEST_REDIS_URL=redis://127.0.0.1:6379/15
# Extra arguments go to pytest (e.g. ./test.sh -k leaderboard).
set -euo pipefail
cd "$(dirname "$0")"
./start.sh --setup-only

# The real-browser tests drive Debian's chromium (never a downloaded browser).
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "== installing Debian's chromium for the browser tests"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "The browser tests need Debian's chromium: run 'sudo apt-get install chromium'" >&2
    echo "(or run everything else: ./test.sh --ignore=tests/browser)." >&2
    exit 1
  fi
fi

echo "== lint: ruff check and ruff format --check (house style)"
.venv/bin/ruff check --quiet .
.venv/bin/ruff format --check --quiet .

# The two passes are independent (their own databases, channel layers and temporary files),
# so they run side by side, each line prefixed with its pass; TEST_PASSES=sequential runs
# one after the other.
embedded() {
  env -u DATABASE_URL -u REDIS_URL -u CELERY_BROKER_URL \
    .venv/bin/python -m pytest -p no:cacheprovider -m "not production" "$@"
}
production() {
  DATABASE_URL=${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/kumo} \
  REDIS_URL=${TEST_REDIS_URL:-redis://127.0.0.1:6379/15} \
  REDIS_SOCKET_TIMEOUT=${TEST_REDIS_SOCKET_TIMEOUT:-6} \
  SECRET_KEY=test-only-secret DEBUG=1 \
    .venv/bin/python -m pytest -p no:cacheprovider "$@"
}

if [ "${TEST_PASSES:-parallel}" = sequential ]; then
  echo "== embedded default: SQLite, in-memory channel layer, in-process Celery"
  embedded "$@"
  echo "== production stack: PostgreSQL, Redis, Celery worker"
  production "$@"
  exit 0
fi

echo "== embedded default (SQLite, in-memory channel layer, in-process Celery) and"
echo "== production stack (PostgreSQL, Redis, Celery worker), side by side"
set +e
embedded "$@" 2>&1 | sed -u 's/^/[embedded] /' &
embedded_pid=$!
production "$@" 2>&1 | sed -u 's/^/[production] /' &
production_pid=$!
wait "$embedded_pid"; embedded_status=$?
wait "$production_pid"; production_status=$?
set -e
echo "== embedded default: $([ "$embedded_status" = 0 ] && echo passed || echo "FAILED ($embedded_status)")"
echo "== production stack: $([ "$production_status" = 0 ] && echo passed || echo "FAILED ($production_status)")"
[ "$embedded_status" = 0 ] && [ "$production_status" = 0 ]
