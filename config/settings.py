"""Django settings for Afterhack; everything that differs per machine comes from the environment."""

import os
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlparse

from afterhack import embedded
from afterhack.env import env_flag, env_host_patterns, env_number

BASE_DIR = Path(__file__).resolve().parent.parent
DATA_DIR = embedded.data_dir()


# Settings given a number (or a host pattern) that is not one: each is a sentence that stops start-up
# (afterhack.startup); the default stands in meanwhile, so that this module still loads.
NUMBER_REFUSALS: list[str] = []


def number[N: (int, float)](name: str, default: N, *, minimum: N) -> N:
    """The number in environment variable `name`, else `default`; a bad one is refused at start-up in words."""
    value, refusal = env_number(name, default, minimum=minimum)
    if refusal:
        NUMBER_REFUSALS.append(refusal)
    return value


def database_from_url(url: str) -> dict[str, object]:
    """A Django DATABASES entry from a postgres:// URL (host may be a socket dir in ?host=)."""
    parsed = urlparse(url)
    query = parse_qs(parsed.query)
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": unquote(parsed.path.lstrip("/")) or "afterhack",
        "USER": unquote(parsed.username or ""),
        "PASSWORD": unquote(parsed.password or ""),
        "HOST": query.get("host", [parsed.hostname or ""])[0],
        "PORT": str(parsed.port or ""),
        # With a pool, every request and task hands its connection back when it ends.
        "CONN_MAX_AGE": 0,
        "CONN_HEALTH_CHECKS": True,
        "OPTIONS": {"connect_timeout": 5, **({"pool": pool_options()} if DB_POOL_SIZE else {})},
    }


def pool_options() -> dict[str, object]:
    """psycopg_pool settings: at most DB_POOL_SIZE connections in this process, a bounded wait for one."""
    return {
        "min_size": 1,
        "max_size": DB_POOL_SIZE,
        # A request waits this long for a free connection, then is answered 503 naming PostgreSQL.
        "timeout": DB_POOL_TIMEOUT,
        # Idle connections beyond min_size are closed, so a quiet worker holds one.
        "max_idle": 60,
        # Reconnecting after PostgreSQL comes back waits at most this long between attempts.
        "reconnect_timeout": 3600,
        "reset": release_session_locks,
    }


def release_session_locks(connection: Any) -> None:
    """Run on a connection handed back to the pool: a session advisory lock must never pass to the next request.

    (Correction appliers hold one per idempotency key and release it themselves; this makes sure of it.)
    """
    connection.execute("SELECT pg_advisory_unlock_all()")


def secret_key() -> str:
    """DJANGO_SECRET_KEY, else a random key kept in the data dir so sessions survive restarts.

    The data dir's key is one host's: with an external PostgreSQL (several hosts may share it) and
    without DJANGO_DEBUG, a missing DJANGO_SECRET_KEY stops start-up (`SECRET_KEY_REFUSAL`, afterhack.startup).
    """
    if key := os.environ.get("DJANGO_SECRET_KEY"):
        return key
    path = DATA_DIR / "secret_key"
    if not path.exists():
        import secrets

        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_urlsafe(50))
    return path.read_text().strip()


SERVICES = embedded.service_urls()

# Connections this process may hold (0: no pool, a connection per request, closed after it).
# The launcher sets it per process kind so that web workers, Celery and commands together stay
# under PostgreSQL's max_connections (see README, "Serving and sizing").
DB_POOL_SIZE = number("AFTERHACK_DB_POOL_SIZE", 4, minimum=0)
DB_POOL_TIMEOUT = number("AFTERHACK_DB_POOL_TIMEOUT", 5.0, minimum=0.1)

SECRET_KEY = secret_key()
DEBUG = env_flag("DJANGO_DEBUG")
# Sessions, CSRF tokens, signed list cursors and password-reset links are signed with SECRET_KEY: every
# host serving the app must have the same one. Only the embedded PostgreSQL (`make run` on one machine,
# no DATABASE_URL) or DJANGO_DEBUG may go without DJANGO_SECRET_KEY.
SECRET_KEY_REFUSAL = (
    ""
    if os.environ.get("DJANGO_SECRET_KEY") or DEBUG or not os.environ.get("DATABASE_URL")
    else "DJANGO_SECRET_KEY is not set: with an external PostgreSQL (DATABASE_URL) every web and worker host "
    "must sign sessions, CSRF tokens and list cursors with the same key, so set DJANGO_SECRET_KEY to one "
    "long random value on all of them (or DJANGO_DEBUG=1 on a development machine)."
)
ALLOWED_HOSTS = [h.strip() for h in os.environ.get("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost,testserver").split(",")]
CSRF_TRUSTED_ORIGINS = [o for o in os.environ.get("DJANGO_CSRF_TRUSTED_ORIGINS", "").split(",") if o]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "ninja",
    "afterhack",
    "workspaces",
    "webhooks",
    "notifications",
    "claims",
    "agents",
    "corrections",
    "mcp_server",
    # The wiring: its commands (`manage.py run`, `bench`, `load_demo`) compose the apps.
    "config",
]

# The company portal's reverse proxy names the logged-in user in this header. Only set it
# when every request reaches Django through that proxy, which must strip the header from
# clients: anyone who can send it directly can log in as anyone.
REMOTE_USER_HEADER = os.environ.get("AFTERHACK_REMOTE_USER_HEADER", "").strip()

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Before WhiteNoise, so that static files carry it too.
    "config.middleware.PermissionsPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # After WhiteNoise: static files keep their year-long caching; everything else answered to credentials is no-store.
    "config.middleware.PrivateAnswersMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "config.middleware.ApiErrorFormatMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "workspaces.acting.ActingPersonMiddleware",
    *(["workspaces.auth.PortalRemoteUserMiddleware"] if REMOTE_USER_HEADER else []),
    "django.contrib.messages.middleware.MessageMiddleware",
    "afterhack.nul_guard.RefuseNulMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

AUTHENTICATION_BACKENDS = [
    *(["workspaces.auth.PortalRemoteUserBackend"] if REMOTE_USER_HEADER else []),
    "django.contrib.auth.backends.ModelBackend",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

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
                "config.context_processors.vocabulary",
            ],
            # Every page names statuses in words (`|in_words`) and times (`|when`) without loading the tags first.
            "builtins": ["afterhack.templatetags.afterhack"],
        },
    },
]

DATABASES = {"default": database_from_url(SERVICES.database_url)}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

FALKORDB_URL = SERVICES.falkordb_url
# A FalkorDB cluster by its nodes (host:port, comma-separated); scheme, user and password come from FALKORDB_URL.
FALKORDB_CLUSTER_NODES = os.environ.get("FALKORDB_CLUSTER_NODES", "")
# On a cluster, each write waits up to this long for its replica to have it (WAIT 1 <ms>); 0: it does not wait.
FALKORDB_CLUSTER_WAIT_MS = number("AFTERHACK_FALKORDB_WAIT_MS", 100, minimum=0)
# Reads that run longer than this are stopped by FalkorDB (writes are not: it can't).
GRAPH_READ_TIMEOUT_MS = number("AFTERHACK_GRAPH_READ_TIMEOUT_MS", 10000, minimum=1)

# Any OpenAI-compatible chat-completions endpoint; with no model set, the offline rules are used.
OPENAI_BASE_URL = os.environ.get("OPENAI_BASE_URL", "")
OPENAI_API_KEY = os.environ.get("OPENAI_API_KEY", "")
AFTERHACK_LLM_MODEL = os.environ.get("AFTERHACK_LLM_MODEL", "")
AFTERHACK_LLM_TIMEOUT = number("AFTERHACK_LLM_TIMEOUT", 60.0, minimum=0.1)
# Semantic search: an embeddings model at the same endpoint; without one, search is lexical only.
AFTERHACK_EMBEDDING_MODEL = os.environ.get("AFTERHACK_EMBEDDING_MODEL", "")
# A search waits this long for its query's embedding before answering lexically (degraded).
AFTERHACK_EMBEDDING_TIMEOUT = number("AFTERHACK_EMBEDDING_TIMEOUT", 5.0, minimum=0.1)
# Statements sent in one embeddings call (and written to the graph in one query).
AFTERHACK_EMBEDDING_BATCH = number("AFTERHACK_EMBEDDING_BATCH", 64, minimum=1)
# A semantic match must be at least this similar (cosine) to the query; below, it is left out.
AFTERHACK_SEMANTIC_MIN_SIMILARITY = number("AFTERHACK_SEMANTIC_MIN_SIMILARITY", 0.25, minimum=0.0)
# The Analyst's tool loop is bounded: this many model calls, and no new call after this many seconds.
# What changed in what a caller relied on lists a change once it is this old: a write's moment is taken before its
# graph write, so one a little earlier may commit a little later (docs/api.md, "What changed in what you relied on").
AFTERHACK_CHANGES_SETTLE_SECONDS = number("AFTERHACK_CHANGES_SETTLE_SECONDS", 5.0, minimum=0.0)
AFTERHACK_AGENT_MAX_STEPS = number("AFTERHACK_AGENT_MAX_STEPS", 8, minimum=1)
AFTERHACK_AGENT_TIMEOUT = number("AFTERHACK_AGENT_TIMEOUT", 180.0, minimum=1.0)

# Crash-recovery tests only: the name of a step at which a correction's process kills itself.
AFTERHACK_FAULT_INJECTION = os.environ.get("AFTERHACK_FAULT_INJECTION", "")

CELERY_BROKER_URL = SERVICES.broker_url
# Without CELERY_BROKER_URL the broker is the FalkorDB server's own Redis (another db number); a FalkorDB
# cluster can't be that broker, so start-up refuses a cluster without one (afterhack.startup).
CELERY_BROKER_URL_GIVEN = bool(os.environ.get("CELERY_BROKER_URL"))
# Pending correction intents whose process died are settled every minute (and at start-up). Every minute too, the
# claims whose contradiction watch was lost are watched; a sweep that waited past the next one's time is dropped.
CELERY_BEAT_SCHEDULE = {
    "recover-corrections": {"task": "corrections.tasks.recover_corrections", "schedule": 60.0},
    "sweep-watches": {"task": "corrections.tasks.watches_sweep", "schedule": 60.0, "options": {"expires": 55.0}},
    # Webhook messages whose next attempt is due are sent every few seconds (a beat that waited is dropped).
    "send-due-webhooks": {"task": "webhooks.tasks.send_due", "schedule": 2.0, "options": {"expires": 2.0}},
    # Delivered and failed webhook messages older than AFTERHACK_WEBHOOK_LOG_DAYS leave the log, with their attempts.
    "prune-webhook-log": {"task": "webhooks.tasks.prune_log", "schedule": 3600.0, "options": {"expires": 3500.0}},
    # What the outbox holds is told after each commit that wrote it; this tells whatever a lost queueing left.
    "tell-pending": {"task": "notifications.tasks.tell_pending", "schedule": 30.0, "options": {"expires": 25.0}},
}
# Telling (the outbox's dispatcher, webhook deliveries, emails) has a queue and a worker of its own (`make run` starts
# it in threads: docs/deployment.md), so a receiver that hangs for its deadline never holds the other work up.
AFTERHACK_TELL_QUEUE = "tell"
CELERY_TASK_ROUTES = {
    "notifications.tasks.*": {"queue": AFTERHACK_TELL_QUEUE},
    "webhooks.tasks.*": {"queue": AFTERHACK_TELL_QUEUE},
}
CELERY_TASK_IGNORE_RESULT = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_WORKER_HIJACK_ROOT_LOGGER = False

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "workspaces:list"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# A source may hold 2,000,000 characters (claims.text.MAX_SOURCE_CHARS); room for that as a form
# post or JSON body, with multi-byte characters. Larger bodies are refused before they are read.
DATA_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
# Seconds a client has to send a whole request (from its first byte) and to take each write of the answer; the
# web worker reads requests without a thread meanwhile (afterhack/web_worker.py).
CLIENT_TIMEOUT = number("AFTERHACK_CLIENT_TIMEOUT", 30.0, minimum=1.0)

STATIC_URL = "static/"
STATIC_ROOT = DATA_DIR / "static"
# `manage.py run` collects static files at start; WhiteNoise serves them compressed, with
# content-hashed names cached for a year. (With DJANGO_DEBUG the unhashed files are served.)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
X_FRAME_OPTIONS = "DENY"

# Behind a proxy or load balancer that ends TLS (docs/deployment.md, "TLS"): AFTERHACK_HTTPS=1 trusts its
# X-Forwarded-Proto (the proxy must set it on every request, replacing the client's), marks the session and CSRF
# cookies Secure and, with AFTERHACK_HSTS_SECONDS, asks browsers to use HTTPS only. Plain HTTP to the web
# processes (the load balancer's /healthz and /readyz) still answers; the proxy redirects people to HTTPS.
HTTPS = env_flag("AFTERHACK_HTTPS")
if HTTPS:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = number("AFTERHACK_HSTS_SECONDS", 0, minimum=0)
    # The proxy redirects HTTP to HTTPS; the web processes must still answer the load balancer's plain checks.
    SILENCED_SYSTEM_CHECKS = ["security.W008"]

# `manage.py run`: the port it serves on, and the size at which it rotates each process's log file.
PORT = number("PORT", 8000, minimum=1)
LOG_MAX_MB = number("AFTERHACK_LOG_MAX_MB", 10.0, minimum=0.01)

# The app's address as receivers of its webhooks read it: each delivery's `url` starts with it.
AFTERHACK_PUBLIC_URL = os.environ.get("AFTERHACK_PUBLIC_URL", f"http://127.0.0.1:{PORT}").rstrip("/")
# Where webhooks may be sent, comma-separated: networks (`10.0.0.0/24`, or one address), matched against the
# addresses the URL's host resolves to; host names (`hooks.example.com`), or all subdomains of one (`*.example.com`;
# `*` nowhere else). The older `10.0.0.*` is read as `10.0.0.0/24`; any other pattern stops start-up in words. Empty:
# any host, private and loopback addresses included (the receivers of an internal tool are internal).
AFTERHACK_WEBHOOK_ALLOWED_HOSTS, _hosts_refusal = env_host_patterns("AFTERHACK_WEBHOOK_ALLOWED_HOSTS")
if _hosts_refusal:
    NUMBER_REFUSALS.append(_hosts_refusal)
# Seconds one delivery attempt may take in all (connecting, sending, the answer's headers and body).
# How long a webhook's deliveries stay in its log once settled (delivered, or failed for good).
AFTERHACK_WEBHOOK_LOG_DAYS = number("AFTERHACK_WEBHOOK_LOG_DAYS", 30, minimum=1)
AFTERHACK_WEBHOOK_TIMEOUT = number("AFTERHACK_WEBHOOK_TIMEOUT", 10.0, minimum=0.1)
# The pauses before each retry of a failed delivery, in seconds, comma-separated (Standard Webhooks' usual schedule:
# 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: 27.6 hours in all); after the last one fails the endpoint is disabled.
AFTERHACK_WEBHOOK_RETRY_SECONDS = [
    float(pause)
    for pause in os.environ.get("AFTERHACK_WEBHOOK_RETRY_SECONDS", "5,300,1800,7200,18000,36000,36000").split(",")
    if pause.strip()
]

LOG_LEVEL = os.environ.get("AFTERHACK_LOG_LEVEL", "INFO")
# Everything goes to stderr; `manage.py run` writes each process's output to a rotating file
# under DATA_DIR/logs. django.request carries the traceback of every 500, page or API.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(process)d %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "loggers": {
        "afterhack": {"handlers": ["console"], "level": LOG_LEVEL},
        "workspaces": {"handlers": ["console"], "level": LOG_LEVEL},
        "webhooks": {"handlers": ["console"], "level": LOG_LEVEL},
        "notifications": {"handlers": ["console"], "level": LOG_LEVEL},
        "claims": {"handlers": ["console"], "level": LOG_LEVEL},
        "agents": {"handlers": ["console"], "level": LOG_LEVEL},
        "corrections": {"handlers": ["console"], "level": LOG_LEVEL},
        "mcp_server": {"handlers": ["console"], "level": LOG_LEVEL},
        "config": {"handlers": ["console"], "level": LOG_LEVEL},
        "django.request": {"handlers": ["console"], "level": "ERROR", "propagate": False},
        "django.security": {"handlers": ["console"], "level": "WARNING", "propagate": False},
    },
}

# Tokens and headers (issue #8): token lifetime, login throttling, Content-Security-Policy.
from django.utils.csp import CSP  # noqa: E402 - kept with the block it serves

# A token from POST /api/v1/auth/token or the admin is refused this many days after it is issued.
AFTERHACK_TOKEN_TTL_DAYS = number("AFTERHACK_TOKEN_TTL_DAYS", 30, minimum=1)
# After this many failed logins of one username from one client within the window, that
# username is refused from that client (429) until the window, counted from the first failure, passes.
AFTERHACK_LOGIN_MAX_FAILURES = number("AFTERHACK_LOGIN_MAX_FAILURES", 5, minimum=1)
AFTERHACK_LOGIN_WINDOW_SECONDS = number("AFTERHACK_LOGIN_WINDOW_SECONDS", 900, minimum=1)
# Every page loads its scripts, styles, images and data from this server only; no inline
# script runs, and no inline style but one carrying the response's nonce (Django's admin marks its own).
# The API docs page adds data: images for Swagger UI's icons (config.api.docs_policy).
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF],
    "style-src": [CSP.SELF, CSP.NONCE],
    "img-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.NONE],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
}
TEMPLATES[0]["OPTIONS"]["context_processors"].append("django.template.context_processors.csp")  # type: ignore[index]

# Notifications by email (notifications/services/email.py), through Django's email framework (its mailers): printed
# to the worker's log (the console backend) unless EMAIL_HOST names an SMTP server, read from the usual variables.
EMAIL_HOST_GIVEN = os.environ.get("EMAIL_HOST", "")
MAILERS = {
    "default": (
        {
            "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "OPTIONS": {
                "host": EMAIL_HOST_GIVEN,
                "port": number("EMAIL_PORT", 25, minimum=1),
                "username": os.environ.get("EMAIL_HOST_USER", ""),
                "password": os.environ.get("EMAIL_HOST_PASSWORD", ""),
                "use_tls": env_flag("EMAIL_USE_TLS"),
                "use_ssl": env_flag("EMAIL_USE_SSL"),
                # An SMTP server that does not answer fails the attempt in bounded time (the worker tries again).
                "timeout": number("EMAIL_TIMEOUT", 10, minimum=1),
            },
        }
        if EMAIL_HOST_GIVEN
        else {"BACKEND": "django.core.mail.backends.console.EmailBackend"}
    )
}
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Afterhack <afterhack@localhost>")
# The daily digest goes out at this hour (UTC); instant emails whose queued task was lost are swept every 5 minutes.
AFTERHACK_DIGEST_HOUR = number("AFTERHACK_DIGEST_HOUR", 7, minimum=0)
from celery.schedules import crontab  # noqa: E402 - kept with the block it serves

CELERY_BEAT_SCHEDULE["email-digests"] = {
    "task": "notifications.tasks.email_digests",
    "schedule": crontab(hour=str(AFTERHACK_DIGEST_HOUR % 24), minute="0"),
}
CELERY_BEAT_SCHEDULE["email-sweep"] = {
    "task": "notifications.tasks.email_sweep",
    "schedule": 300.0,
    "options": {"expires": 290.0},
}
