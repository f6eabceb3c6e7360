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
# one after the other. The production pass itself runs in two processes (TEST_LANE, see
# tests/conftest.py): tests/production (the recipe's processes and faults: mostly waiting
# for leases, restarts and idle sockets) beside everything else, each on its own test
# database and Redis database.
embedded() {
  env -u DATABASE_URL -u REDIS_URL -u CELERY_BROKER_URL \
    .venv/bin/python -m pytest -p no:cacheprovider -m "not production" "$@"
}
production() {
  DATABASE_URL=${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/kumo} \
  REDIS_URL=${TEST_REDIS_URL:-redis://127.0.0.1:6379/15} \
  REDIS_SOCKET_TIMEOUT=${TEST_REDIS_SOCKET_TIMEOUT:-6} \
  SECRET_KEY=test-only-secret DEBUG=1 TEST_LANE=main \
    .venv/bin/python -m pytest -p no:cacheprovider "$@"
}
services() {
  DATABASE_URL=${TEST_SERVICES_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/kumo_services} \
  REDIS_URL=${TEST_SERVICES_REDIS_URL:-redis://127.0.0.1:6379/14} \
  REDIS_SOCKET_TIMEOUT=${TEST_REDIS_SOCKET_TIMEOUT:-6} \
  SECRET_KEY=test-only-secret DEBUG=1 TEST_LANE=services \
    .venv/bin/python -m pytest -p no:cacheprovider "$@"
}
# A lane left with no test by the arguments (e.g. ./test.sh tests/play) has passed.
lane() {
  local status=0
  "$@" || status=$?
  [ "$status" = 5 ] && status=0
  return "$status"
}

if [ "${TEST_PASSES:-parallel}" = sequential ]; then
  echo "== embedded default: SQLite, in-memory channel layer, in-process Celery"
  lane embedded "$@"
  echo "== production stack: PostgreSQL, Redis, Celery worker"
  lane production "$@"
  lane services "$@"
  exit 0
fi

echo "== embedded default (SQLite, in-memory channel layer, in-process Celery) and"
echo "== production stack (PostgreSQL, Redis, Celery worker), side by side"
# Each lane's output is also kept, so that what failed is repeated at the very end, next
# to the verdicts (a lane that ends early has its summary far up in the interleaved log).
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
set +e
lane embedded "$@" 2>&1 | tee "$logs/embedded" | sed -u 's/^/[embedded] /' &
embedded_pid=$!
lane production "$@" 2>&1 | tee "$logs/production" | sed -u 's/^/[production] /' &
production_pid=$!
lane services "$@" 2>&1 | tee "$logs/services" | sed -u 's/^/[services] /' &
services_pid=$!
wait "$embedded_pid"; embedded_status=$?
wait "$production_pid"; production_status=$?
wait "$services_pid"; services_status=$?
set -e
for name in embedded production services; do
  if grep -qE '^(FAILED|ERROR) ' "$logs/$name"; then
    echo "== what failed in the $name lane:"
    grep -E '^(FAILED|ERROR) ' "$logs/$name" | cut -c1-400 | sed "s/^/[$name] /"
  fi
done
verdict() { [ "$1" = 0 ] && echo passed || echo "FAILED ($1)"; }
echo "== embedded default: $(verdict "$embedded_status")"
echo "== production stack: $(verdict "$production_status")"
echo "== production stack, tests/production: $(verdict "$services_status")"
[ "$embedded_status" = 0 ] && [ "$production_status" = 0 ] && [ "$services_status" = 0 ]
