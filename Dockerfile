# The reference deployment's image (docs/deployment.md): one image for the web server, the Celery workers and the
# one beat. Never built on the machine this was written on (it has no Docker engine): see docs/deployment.md.
FROM python:3.12-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    UV_PYTHON_DOWNLOADS=never \
    UV_PROJECT_ENVIRONMENT=/app/.venv \
    UV_LINK_MODE=copy \
    AFTERHACK_DATA_DIR=/var/lib/afterhack \
    PATH=/app/.venv/bin:$PATH

# The uv the Makefile pins.
RUN pip install --no-cache-dir "uv==0.13.8" \
 && useradd --system --create-home --home-dir /var/lib/afterhack afterhack

WORKDIR /app
# Dependencies first (a layer that changes only with uv.lock), then the code; no dev group (tests, linters).
COPY pyproject.toml uv.lock ./
RUN uv sync --frozen --no-dev --no-install-project
COPY afterhack afterhack
COPY workspaces workspaces
COPY claims claims
COPY agents agents
COPY corrections corrections
COPY mcp_server mcp_server
COPY config config
COPY benchmarks benchmarks
COPY templates templates
COPY manage.py ./
RUN uv sync --frozen --no-dev \
 && DJANGO_SECRET_KEY=build-only AFTERHACK_STORES=none python manage.py collectstatic --noinput --verbosity 0 \
 && chown -R afterhack /var/lib/afterhack

USER afterhack
EXPOSE 8000
# The web server: the same gunicorn and flags `make run` uses (afterhack/serving.py, gunicorn_command), bound to
# every interface of the container instead of 127.0.0.1. compose.yaml gives the worker and the beat their commands.
CMD ["sh", "-c", "exec gunicorn config.wsgi:application --bind 0.0.0.0:8000 --worker-class afterhack.web_worker.WholeRequestWorker --workers ${AFTERHACK_WEB_WORKERS:-3} --threads ${AFTERHACK_WEB_THREADS:-8} --timeout 60 --graceful-timeout 20 --keep-alive 5 --max-requests 5000 --max-requests-jitter 5000 --backlog 2048 --access-logfile - --access-logformat '%(h)s \"%(r)s\" %(s)s %(B)s %(M)sms \"%(a)s\"' --error-logfile - --capture-output --name afterhack-web --no-control-socket"]
