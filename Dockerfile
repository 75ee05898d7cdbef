# Denpex: the Slack bot (and the CLI) in a slim, non-root image.

# The wheel: pure Python, so the build stage needs no compiler.
FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY bot ./bot
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

FROM python:3.11-slim AS runtime

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    DENPEX_RULES_DIR=/app/rules \
    DENPEX_CACHE_DIR=/app/cache \
    PORT=3000

WORKDIR /app
COPY --from=build /wheels /wheels
COPY rules ./rules
RUN pip install --no-compile /wheels/*.whl && rm -rf /wheels \
    && useradd --create-home --uid 10001 denpex \
    && denpex rules lint \
    && echo "warm the compiled-rules cache" | denpex diagnose - >/dev/null

USER denpex
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=3s --start-period=20s --retries=3 \
    CMD python -c "import os, urllib.request; urllib.request.urlopen(f'http://127.0.0.1:{os.environ.get(\"PORT\", \"3000\")}/healthz', timeout=2)" || exit 1

# HTTP mode by default; for Socket Mode run `denpex serve` with SLACK_APP_TOKEN set.
CMD ["sh", "-c", "exec denpex serve --http --port ${PORT}"]
