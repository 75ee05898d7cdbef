# syntax=docker/dockerfile:1
# Denpex: the Slack bot (and the CLI) in a slim, non-root image.
#
# The base is pinned to one exact Python release on one Debian release; bump it on purpose.
# Where your registry policy wants a digest too, pin it with the digest your registry reports:
#   docker buildx imagetools inspect python:3.11.11-slim-bookworm   (then ...-bookworm@sha256:<digest>)
ARG PYTHON_IMAGE=python:3.11.11-slim-bookworm

# The wheel: pure Python (the rules travel inside it as bot/_rules), so no compiler.
FROM ${PYTHON_IMAGE} AS build
WORKDIR /src
COPY requirements-build.lock pyproject.toml README.md ./
COPY bot ./bot
COPY rules ./rules
# The build backend from its own hashed lock, not whatever an isolated build would download.
RUN pip install --no-cache-dir --require-hashes -r requirements-build.lock \
    && pip wheel --no-cache-dir --no-deps --no-build-isolation --wheel-dir /wheels .

FROM ${PYTHON_IMAGE} AS runtime

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DENPEX_CACHE_DIR=/home/denpex/.cache/denpex \
    PORT=3000

# Dependencies exactly as locked, each file checked against its hash (requirements.lock:
# pip-compile --generate-hashes of denpex[slack,zstd]; regenerate it when pyproject.toml's
# dependencies change), then the package itself with nothing resolved anew.
COPY requirements.lock /tmp/requirements.lock
COPY --from=build /wheels /tmp/wheels
RUN pip install --no-compile --require-hashes --no-deps -r /tmp/requirements.lock \
    && pip install --no-compile --no-deps /tmp/wheels/denpex-*.whl \
    && pip check \
    && rm -rf /tmp/wheels /tmp/requirements.lock \
    && useradd --create-home --uid 10001 --user-group denpex

USER denpex
WORKDIR /home/denpex
# Fail the build on a broken knowledge base; compile the rules once into the user's cache.
RUN denpex rules lint \
    && echo "warm the compiled-rules cache" | denpex diagnose --quiet - >/dev/null

EXPOSE 3000
# /healthz answers in both modes: HTTP mode's server, and in Socket Mode a small health server
# on the same port that says 503 while the socket to Slack is down.
HEALTHCHECK --interval=30s --timeout=3s --start-period=20s --retries=3 \
    CMD python -c "import os, urllib.request; urllib.request.urlopen(f'http://127.0.0.1:{os.environ.get(\"PORT\", \"3000\")}/healthz', timeout=2)" || exit 1

# Socket Mode when SLACK_APP_TOKEN is set, else HTTP mode (needs SLACK_SIGNING_SECRET).
CMD ["sh", "-c", "if [ -n \"$SLACK_APP_TOKEN\" ]; then exec denpex serve --port \"$PORT\"; else exec denpex serve --http --port \"$PORT\"; fi"]
