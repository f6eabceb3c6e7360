"""Settings for the KUMO platform: one file, configured by environment variables.

With no variables set everything runs embedded: a SQLite file, the in-memory channel
layer and Celery tasks executed in-process. Production sets:

- ``DATABASE_URL`` (e.g. ``postgres://user:pass@host:5432/kumo``),
- ``REDIS_URL`` (channel layer, Celery broker and result backend),
- ``SECRET_KEY``, ``ALLOWED_HOSTS`` (comma-separated), ``DEBUG=0``.
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    if value.lower() in {"1", "true", "yes", "on"}:
        return True
    if value.lower() in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (1/0, true/false), got {value!r}")


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    try:
        return int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer, got {value!r}") from None


def env_float(name: str, default: float) -> float:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    try:
        return float(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a number, got {value!r}") from None


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


DEBUG = env_bool("DEBUG", True)
SECRET_KEY = env_str("SECRET_KEY")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off")
    # Only for the embedded development default; production refuses to start without one.
    SECRET_KEY = "insecure-development-key-do-not-use-in-production"

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    # daphne makes ``runserver`` (./start.sh) serve HTTP and websockets. Loading it installs
    # Twisted's reactor (0.17 s), which no other command or server process needs.
    *(["daphne"] if "runserver" in sys.argv else []),
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "channels",
    "django_celery_beat",
    "axes",
    "engine",
    "humanstudy",
    "leaderboard",
    "benchmark",
]

MIDDLEWARE = [
    # First: a request that lost its database connection before committing anything is run
    # again, through the whole chain, on a fresh connection (benchmark/retry.py).
    "benchmark.retry.RetryDroppedConnectionMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # A NUL in an address or query is refused with 400 before any lookup could meet it.
    "benchmark.api_conventions.RefuseNulMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, as django-axes requires: turns a locked-out login into a clear 429 page.
    "axes.middleware.AxesMiddleware",
]

if not DEBUG:
    # Serve collected static files from the app server in production (no extra web server).
    MIDDLEWARE.insert(2, "whitenoise.middleware.WhiteNoiseMiddleware")

ROOT_URLCONF = "benchmark.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

WSGI_APPLICATION = None
ASGI_APPLICATION = "benchmark.asgi.application"
# Seconds a pooled PostgreSQL connection may sit unused before it is checked on lending.
DATABASE_POOL_CHECK_IDLE = env_float("DATABASE_POOL_CHECK_IDLE", 5.0)

DATABASE_URL = env_str("DATABASE_URL")
if DATABASE_URL:
    DATABASES = {"default": dj_database_url.parse(DATABASE_URL)}
    if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and env_bool(
        "DATABASE_POOL", True
    ):
        # A bounded pool per process (psycopg_pool): requests wait up to the timeout for a
        # free connection instead of opening one each until PostgreSQL refuses. Size it so
        # that processes x DATABASE_POOL_MAX stays below the server's max_connections.
        # Pooled connections are returned after each request, so CONN_MAX_AGE stays 0.
        # The pool checks a connection before lending it out when it sat unused for
        # DATABASE_POOL_CHECK_IDLE seconds (benchmark/postgresql/base.py), so one the
        # server dropped is replaced instead of failing a request; Django's own backend
        # would check on every request.
        DATABASES["default"]["ENGINE"] = "benchmark.postgresql"
        DATABASES["default"]["CONN_MAX_AGE"] = 0
        DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
        DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
            "min_size": env_int("DATABASE_POOL_MIN", 1),
            "max_size": env_int("DATABASE_POOL_MAX", 10),
            "timeout": env_float("DATABASE_POOL_TIMEOUT", 10.0),
        }
    else:
        DATABASES["default"]["CONN_MAX_AGE"] = env_int("CONN_MAX_AGE", 60)
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": env_str("SQLITE_PATH", str(BASE_DIR / "db.sqlite3")),
            # Concurrent players write steps; wait for the lock rather than fail at once.
            # WAL with synchronous=NORMAL: a commit appends to the log without an fsync, so
            # a move costs about 12 ms instead of 40 (measured with benchmarks/play_load.py);
            # a crash of the process loses nothing, a power cut at most the last moves.
            # A process that forks must not use its parent's open connections (WAL's shared
            # memory does not survive that): the live-server tests close them first.
            "OPTIONS": {
                "timeout": 20,
                "transaction_mode": "IMMEDIATE",
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            },
            # Tests use a file too: an in-memory shared-cache database fails concurrent
            # writers at once instead of making them wait, unlike the real thing.
            # One file per test process, so parallel runs never share a database.
            "TEST": {
                "NAME": env_str(
                    "SQLITE_TEST_PATH",
                    str(Path(tempfile.gettempdir()) / f"kumo-test-{os.getpid()}.sqlite3"),
                )
            },
        }
    }

REDIS_URL = env_str("REDIS_URL")
# The channel layer blocks up to 5 s on Redis for each receive (channels_redis'
# brpop_timeout), so a socket timeout must be longer: redis-py 8 defaults to 5 s, which
# raced it and closed every idle play websocket (1011) after about 5 s. (A consumer closed
# mid-read waits up to this long to let go of its connection; the test pass uses 6 s.)
REDIS_SOCKET_TIMEOUT = env_float("REDIS_SOCKET_TIMEOUT", 30.0)
if REDIS_SOCKET_TIMEOUT <= 5:
    raise ImproperlyConfigured("REDIS_SOCKET_TIMEOUT must be over 5 s (the layer blocks 5 s)")
# Redis connections one web process may hold for the channel layer; an operation past it
# waits up to REDIS_POOL_TIMEOUT seconds for a free one instead of failing
# (benchmark/channel_layer.py). 100 per process held 500 players on two processes with the
# wait; processes x REDIS_MAX_CONNECTIONS must stay below Redis's maxclients (10,000).
REDIS_MAX_CONNECTIONS = env_int("REDIS_MAX_CONNECTIONS", 100)
REDIS_POOL_TIMEOUT = env_float("REDIS_POOL_TIMEOUT", 10.0)
# Live updates waiting in one web process's Redis queue (channels_redis keeps one per
# process, shared by all its websockets); past it an update is dropped. Each update carries
# the session's whole state, so the next one (or the page's next message) heals a dropped
# one; this keeps drops away under load: 1,000 is 10 s of moves at 100 a second, and
# updates older than the layer's 60 s expiry are dropped anyway.
CHANNEL_CAPACITY = env_int("CHANNEL_CAPACITY", 1000)
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "benchmark.channel_layer.RedisChannelLayer",
            "CONFIG": {
                "hosts": [
                    {
                        "address": REDIS_URL,
                        "socket_timeout": REDIS_SOCKET_TIMEOUT,
                        "max_connections": REDIS_MAX_CONNECTIONS,
                        "timeout": REDIS_POOL_TIMEOUT,
                    }
                ],
                "capacity": CHANNEL_CAPACITY,
            },
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", REDIS_URL)
CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND", REDIS_URL) or None
# Without a broker, run tasks in-process so the embedded default needs no worker.
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_BROKER_URL = CELERY_BROKER_URL or "memory://"
# django-celery-beat's scheduler, retrying a tick when the database fails for a moment
# instead of exiting (benchmark/schedulers.py).
CELERY_BEAT_SCHEDULER = "benchmark.schedulers:ResilientDatabaseScheduler"
# The worker heartbeat behind /health/ (benchmark/health.py): beat sends it this often, and
# the check fails when the last one is older than HEARTBEAT_STALE_SECONDS.
HEARTBEAT_SECONDS = env_float("HEARTBEAT_SECONDS", 30.0)
HEARTBEAT_STALE_SECONDS = env_float("HEARTBEAT_STALE_SECONDS", 120.0)
# Every job that a dying worker must not strand (a results file's scoring, an evaluation
# run, a round's preparation, a domain's generation, a family practice task's generation)
# holds a lease of its own *_LEASE_SECONDS that the working process renews every third of it
# (benchmark.jobs.LeaseKeeper), and beat's sweeps run every REQUEUE_STALLED_SECONDS: a killed
# worker's job is queued again at most lease + sweep after its last renewal (30 + 10 s by
# default), however long the job is.
REQUEUE_STALLED_SECONDS = env_float("REQUEUE_STALLED_SECONDS", 10.0)
# A player's practice generation (a KUMO game, a fresh family task) has a queue of its own,
# served by the recipe's practice worker (deploy/Procfile), so that a visitor's game never
# waits behind an evaluation run or a round's preparation on the main worker.
PRACTICE_QUEUE = "practice"
CELERY_TASK_ROUTES = {"engine.generate_family_practice": {"queue": PRACTICE_QUEUE}}
CELERY_BEAT_SCHEDULE = {
    "worker heartbeat": {"task": "benchmark.heartbeat", "schedule": HEARTBEAT_SECONDS},
    "practice worker heartbeat": {
        "task": "benchmark.heartbeat",
        "schedule": HEARTBEAT_SECONDS,
        "args": ["practice"],
        "options": {"queue": PRACTICE_QUEUE},
    },
    "requeue stalled submissions": {
        "task": "leaderboard.requeue_stalled_submissions",
        "schedule": REQUEUE_STALLED_SECONDS,
    },
    "requeue stalled runs": {
        "task": "benchmark.requeue_stalled_runs",
        "schedule": REQUEUE_STALLED_SECONDS,
    },
    "requeue stalled round preparations": {
        "task": "leaderboard.requeue_stalled_preparations",
        "schedule": REQUEUE_STALLED_SECONDS,
    },
    "requeue stalled domain generations": {
        "task": "engine.requeue_stalled_generations",
        "schedule": REQUEUE_STALLED_SECONDS,
    },
    "requeue stalled authoring jobs": {
        "task": "engine.requeue_stalled_authoring_jobs",
        "schedule": REQUEUE_STALLED_SECONDS,
    },
    "requeue stalled family practice requests": {
        "task": "engine.requeue_stalled_practice_requests",
        "schedule": REQUEUE_STALLED_SECONDS,
    },
    "purge old practice games": {"task": "engine.purge_practice", "schedule": 24 * 3600.0},
}
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = "UTC"

# Rounds (docs/rounds.md): the daily check mails ADMINS when a rotation is due, or due
# within ROUNDS_WARN_DAYS with no round prepared; a prepared round that is due is rotated
# in automatically unless ROUNDS_AUTO_ROTATE=0.
ROUNDS_AUTO_ROTATE = env_bool("ROUNDS_AUTO_ROTATE", True)
# Scoring a submission is a job with a lease (leaderboard.actions.process_submission), renewed
# while the worker scores: a try whose worker died is taken over once its lease expires;
# after the attempts it fails.
SUBMISSION_LEASE_SECONDS = env_int("SUBMISSION_LEASE_SECONDS", 30)
SUBMISSION_MAX_ATTEMPTS = env_int("SUBMISSION_MAX_ATTEMPTS", 3)
# Evaluation runs: the worker renews its run's lease every third of RUN_LEASE_SECONDS; a
# run whose lease expired is queued again, at most RUN_MAX_ATTEMPTS times in a row.
RUN_LEASE_SECONDS = env_int("RUN_LEASE_SECONDS", 30)
RUN_MAX_ATTEMPTS = env_int("RUN_MAX_ATTEMPTS", 3)
# Round preparation and a domain proposal's generation hold leases the same way
# (benchmark.jobs); after the attempts they fail with the reason, and staff may retry.
ROUND_LEASE_SECONDS = env_int("ROUND_LEASE_SECONDS", 30)
ROUND_MAX_ATTEMPTS = env_int("ROUND_MAX_ATTEMPTS", 3)
AUTHORING_LEASE_SECONDS = env_int("AUTHORING_LEASE_SECONDS", 30)
AUTHORING_MAX_ATTEMPTS = env_int("AUTHORING_MAX_ATTEMPTS", 3)
# The other authoring jobs (a brief's proposals, LLM books, re-runs) hold the same lease on an
# AuthoringJob row each; one still pending, unclaimed, this long after it was queued lost its
# message (or the worker that took it died before starting it) and is queued again, at most
# once per this period.
AUTHORING_PENDING_GRACE_SECONDS = env_int("AUTHORING_PENDING_GRACE_SECONDS", 120)
# A player's request for a fresh family practice task (engine.family_practice) holds a lease
# the same way; one still pending, unclaimed, after FAMILY_PRACTICE_PENDING_GRACE_SECONDS lost
# its message (a broker restart) and is queued again, at most once per grace period.
FAMILY_PRACTICE_LEASE_SECONDS = env_int("FAMILY_PRACTICE_LEASE_SECONDS", 30)
FAMILY_PRACTICE_MAX_ATTEMPTS = env_int("FAMILY_PRACTICE_MAX_ATTEMPTS", 3)
FAMILY_PRACTICE_PENDING_GRACE_SECONDS = env_int("FAMILY_PRACTICE_PENDING_GRACE_SECONDS", 60)
SUBMISSION_PENDING_GRACE_SECONDS = env_int("SUBMISSION_PENDING_GRACE_SECONDS", 120)
# The largest results file accepted (bytes); a larger upload is refused before it is read.
SUBMISSION_MAX_BYTES = env_int("SUBMISSION_MAX_BYTES", 100 * 1024 * 1024)
# Ranked games (docs/verified-evaluation.md): how many unfinished ranked games one model may
# have per domain and setting at once (each holds a freshly generated instance).
RANKED_MAX_OPEN_GAMES = env_int("RANKED_MAX_OPEN_GAMES", 8)
# How many refused moves end a game of any family (engine.limits): each is stored as a step,
# so the cap bounds how far a player can grow a game's record with moves the game refuses.
PLAY_MAX_REFUSED_MOVES = env_int("PLAY_MAX_REFUSED_MOVES", 200)
# How many model names one account may own (leaderboard.names); staff raise it for an
# account with a model-name allowance in the admin, and staff accounts have no cap.
MODEL_NAMES_PER_ACCOUNT = env_int("MODEL_NAMES_PER_ACCOUNT", 10)
# The key of the seeds of tasks whose answers stay hidden (engine.seeds: rounds' pinned tasks
# and instances, study task sets). Defaults to one derived from SECRET_KEY; set it to keep
# the same tasks across a change of SECRET_KEY. Never published: with it, a round's seed
# regenerates the round's answers.
TASK_SEED_SECRET = (
    env_str("TASK_SEED_SECRET")
    or hashlib.sha256(f"kumo task seeds\x1f{SECRET_KEY}".encode()).hexdigest()
)
ROUNDS_WARN_DAYS = env_int("ROUNDS_WARN_DAYS", 14)
# Practice games from the Play entry (engine.practice): each generates and solves a fresh
# task, so a player (a visitor's guest account, or a signed-in user) may start at most this
# many an hour, and the visitors of one client address at most VISITOR_GAMES_PER_HOUR_PER_IP.
VISITOR_GAMES_PER_HOUR = env_int("VISITOR_GAMES_PER_HOUR", 20)
# Practice games (and the guest accounts left with none) older than this many days are
# deleted daily (engine.practice.purge_practice): they are never analysed or ranked.
PRACTICE_KEEP_DAYS = env_int("PRACTICE_KEEP_DAYS", 30)
VISITOR_GAMES_PER_HOUR_PER_IP = env_int("VISITOR_GAMES_PER_HOUR_PER_IP", 60)
# The study link (humanstudy.path.join_by_label) makes at most this many participants an
# hour from one client address (0: none at all), so a leaked link cannot be farmed.
STUDY_JOINS_PER_HOUR_PER_IP = env_int("STUDY_JOINS_PER_HOUR_PER_IP", 10)
# "ADMINS=ops@example.org,lead@example.org"; without it mail_admins sends nothing.
ADMINS = [(address, address) for address in env_list("ADMINS", [])]
SERVER_EMAIL = env_str("SERVER_EMAIL", "kumo@localhost")
# Mail to people (sign-up confirmations, password resets): From this address.
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", SERVER_EMAIL)
# Mail goes out over SMTP once EMAIL_HOST is set; without it the embedded default prints
# every message to the web process's console (its log), so a local site needs no mail
# server and a confirmation link can be copied from there. ``check --deploy`` warns when
# DEBUG is off and no EMAIL_HOST is set (benchmark.checks).
EMAIL_HOST = env_str("EMAIL_HOST")
EMAIL_BACKEND = env_str(
    "EMAIL_BACKEND",
    "django.core.mail.backends.smtp.EmailBackend"
    if EMAIL_HOST
    else "django.core.mail.backends.console.EmailBackend",
)
EMAIL_HOST = EMAIL_HOST or "localhost"
EMAIL_PORT = env_int("EMAIL_PORT", 25)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)
EMAIL_TIMEOUT = env_float("EMAIL_TIMEOUT", 10.0)
# The site's address, for links written outside a request (create_api_token's set-password
# link); pages and mails sent from a request use the request's own address.
SITE_URL = env_str("SITE_URL", "http://127.0.0.1:8000").rstrip("/")
# Self-service sign-up (benchmark.accounts): accounts one client address may create an
# hour (0: sign-up closed), and how long a confirmation or password link stays valid.
SIGNUPS_PER_HOUR_PER_IP = env_int("SIGNUPS_PER_HOUR_PER_IP", 5)
PASSWORD_RESET_MINUTES = env_int("PASSWORD_RESET_MINUTES", 5)
PASSWORD_RESET_TIMEOUT = env_int("ACCOUNT_LINK_HOURS", 72) * 3600

# Login rate limiting (django-axes): after AXES_FAILURE_LIMIT failed logins for one
# username from one address, further attempts are refused until the cool-off passes.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOGIN_COOLOFF_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_VERBOSE = False
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
# The client's address, for django-axes and every per-address limit (sign-ups, visitor
# games, study joins): REMOTE_ADDR only, never a header. uvicorn sets it from
# X-Forwarded-For only for a connection from FORWARDED_ALLOW_IPS (the TLS proxy), so a
# forged header from anyone else changes nothing.
AXES_CLIENT_IP_CALLABLE = "benchmark.accounts.client_address"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
# Where collectstatic writes and whitenoise serves from (DEBUG off).
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(BASE_DIR / "staticfiles")))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}
MEDIA_ROOT = Path(env_str("MEDIA_ROOT", str(BASE_DIR / "media")))

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "/"

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "benchmark.authentication.TokenAuthentication",
        "benchmark.authentication.SessionAuthentication",
    ],
    # Signed in, and not a study participant (benchmark/permissions.py).
    "DEFAULT_PERMISSION_CLASSES": [
        "rest_framework.permissions.IsAuthenticated",
        "benchmark.permissions.NotStudyParticipant",
    ],
    # One error shape and a schema that documents it (benchmark/api_conventions.py).
    "EXCEPTION_HANDLER": "benchmark.api_conventions.exception_handler",
    # JSON nested past Python's recursion limit is a 400 like any malformed body.
    "DEFAULT_PARSER_CLASSES": [
        "benchmark.parsers.JSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_SCHEMA_CLASS": "benchmark.api_schema.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "benchmark.api_conventions.StrictLimitOffsetPagination",
    "PAGE_SIZE": 100,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "KUMO platform API",
    "DESCRIPTION": "Play held-out reasoning tasks, upload results, read the leaderboard.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    # Request bodies get their own components, so required text fields say minLength 1.
    "COMPONENT_SPLIT_REQUEST": True,
    # Swagger UI's files from this site (drf-spectacular-sidecar), never from a CDN: the
    # docs work offline and no third-party script runs on the site's origin.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # No badge from validator.swagger.io, whatever layout Swagger UI is given.
    "SWAGGER_UI_SETTINGS": {"validatorUrl": None, "deepLinking": True},
}

if not DEBUG:
    # Behind a TLS-terminating proxy that sets X-Forwarded-Proto (docs: README, Production).
    SESSION_COOKIE_SECURE = env_bool("SECURE_COOKIES", True)
    CSRF_COOKIE_SECURE = env_bool("SECURE_COOKIES", True)
    # No SECURE_PROXY_SSL_HEADER: uvicorn (--proxy-headers) already takes the scheme from
    # X-Forwarded-Proto, and only from FORWARDED_ALLOW_IPS; Django reading the header itself
    # would believe it from anyone.
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    # The health check is probed over plain HTTP by the process supervisor.
    SECURE_REDIRECT_EXEMPT = [r"^health/$"]
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31_536_000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
    SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)

# The authoring LLM (docs/domain-authoring.md): proposes domains, writes seed configs and
# knowledge books. Unset base URL = no authoring LLM; everything else works without one.
# The key is read from the variable *named* by AUTHORING_LLM_API_KEY_ENV, never stored.
AUTHORING_LLM_BASE_URL = env_str("AUTHORING_LLM_BASE_URL")
AUTHORING_LLM_MODEL = env_str("AUTHORING_LLM_MODEL")
AUTHORING_LLM_API_KEY_ENV = env_str("AUTHORING_LLM_API_KEY_ENV")
AUTHORING_LLM_TIMEOUT = env_float("AUTHORING_LLM_TIMEOUT", 600.0)
AUTHORING_LLM_MAX_TOKENS = env_int("AUTHORING_LLM_MAX_TOKENS", 0)  # 0: the API's default
# Prices per 1,000 tokens, for the cost estimate recorded with every call (0: not shown).
AUTHORING_LLM_PROMPT_PRICE_PER_1K = env_float("AUTHORING_LLM_PROMPT_PRICE_PER_1K", 0.0)
AUTHORING_LLM_COMPLETION_PRICE_PER_1K = env_float("AUTHORING_LLM_COMPLETION_PRICE_PER_1K", 0.0)
AUTHORING_CONFIG_ROUNDS = env_int("AUTHORING_CONFIG_ROUNDS", 3)
AUTHORING_CONTINUATIONS = env_int("AUTHORING_CONTINUATIONS", 3)
AUTHORING_BOOK_REVISIONS = env_int("AUTHORING_BOOK_REVISIONS", 2)
AUTHORING_MIN_TRUTHS = env_int("AUTHORING_MIN_TRUTHS", 50)
AUTHORING_MIN_ACTIONS = env_int("AUTHORING_MIN_ACTIONS", 30)

# uvicorn's access log: a line per request (ACCESS_LOG=1), or none (the default: it cost the
# move's hot path a formatted line each); errors are logged either way (benchmark.asgi).
ACCESS_LOG = env_bool("ACCESS_LOG", False)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
}
