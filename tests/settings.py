"""Settings for the test suite: the app's settings on stores of its own.

Order of preference for each store: an explicit URL (`DATABASE_URL`, `FALKORDB_URL`), then
a Docker container when `DATABASE_BACKEND=docker` / `FALKORDB_BACKEND=docker` (needs a
Docker engine), else the embedded servers in a fresh temp data dir that is removed at exit.
"""

import atexit
import os
import tempfile
import warnings
from pathlib import Path

from afterhack import embedded


def _docker_available() -> bool:
    try:
        import docker

        docker.from_env().ping()
    except Exception:  # noqa: BLE001 - any failure means: no engine to use
        warnings.warn(
            "A Docker backend was asked for, but no Docker engine answers: using the embedded stores.", stacklevel=1
        )
        return False
    return True


def _docker_stores() -> None:
    wanted = {os.environ.get("FALKORDB_BACKEND"), os.environ.get("DATABASE_BACKEND")}
    if "docker" not in wanted or not _docker_available():
        return
    if os.environ.get("FALKORDB_BACKEND") == "docker" and not os.environ.get("FALKORDB_URL"):
        from testcontainers.core.container import DockerContainer
        from testcontainers.core.waiting_utils import wait_for_logs

        falkordb = DockerContainer("falkordb/falkordb:latest").with_exposed_ports(6379)
        falkordb.start()
        wait_for_logs(falkordb, "Ready to accept connections")
        atexit.register(falkordb.stop)
        host, port = falkordb.get_container_host_ip(), falkordb.get_exposed_port(6379)
        os.environ["FALKORDB_URL"] = f"redis://{host}:{port}/0"
    if os.environ.get("DATABASE_BACKEND") == "docker" and not os.environ.get("DATABASE_URL"):
        from testcontainers.postgres import PostgresContainer

        postgres = PostgresContainer("postgres:18", driver=None)
        postgres.start()
        atexit.register(postgres.stop)
        os.environ["DATABASE_URL"] = postgres.get_connection_url()


def _test_data_dir() -> Path:
    # Never the developer's data dir: the suite starts from empty stores every run.
    # Under pytest-xdist each worker process comes here and gets stores of its own, named after it.
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    root = Path(tempfile.mkdtemp(prefix=f"ah-test-{worker}-" if worker else "ah-test-"))
    os.environ["AFTERHACK_DATA_DIR"] = str(root)
    atexit.register(embedded.wipe, root)
    return root


_docker_stores()
TEST_DATA_DIR = _test_data_dir()
# With DATABASE_URL, start-up refuses to go without a key shared by every host (afterhack.startup);
# the suite's child processes (manage.py commands, launchers) inherit this one.
os.environ.setdefault("DJANGO_SECRET_KEY", "test-suite-key-" + os.urandom(16).hex())

from config.settings import *  # noqa: E402,F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
CELERY_TASK_ALWAYS_EAGER = True
CELERY_TASK_EAGER_PROPAGATES = True

# The suite does not run collectstatic: serve static files from the apps, unhashed.
STORAGES = {**STORAGES, "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}  # noqa: F405
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # noqa: F405 - WhiteNoise expects the folder to exist

# What changed in what a caller relied on lists changes at once here (the settling is tested on its own).
AFTERHACK_CHANGES_SETTLE_SECONDS = 0.0
