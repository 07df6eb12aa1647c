# syntax=docker/dockerfile:1
# packsync container image: Node 24 LTS, git for the git source, gnupg and openssh-client (ssh-keygen)
# for commit signature verification (run --verify-mode), production dependencies only,
# non-root, writes only to /var/lib/packsync (works with a read-only root filesystem).

FROM node:24-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
# Skip the prepare build until the sources are in.
RUN npm ci --ignore-scripts
COPY src ./src
COPY bench ./bench
COPY schemas ./schemas
RUN npx tsc -p tsconfig.build.json && npm prune --omit=dev --ignore-scripts

FROM node:24-bookworm-slim AS runtime
RUN apt-get update \
 && apt-get install -y --no-install-recommends git openssh-client gnupg ca-certificates tini \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /var/lib/packsync --shell /usr/sbin/nologin packsync \
 && mkdir -p /var/lib/packsync && chown packsync /var/lib/packsync
WORKDIR /app
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist/src ./dist/src
# The compiled code imports the schemas from dist/schemas (tsc emits the JSON next to it).
COPY --from=build /src/dist/schemas ./dist/schemas
COPY --from=build /src/schemas ./schemas
COPY package.json README.md ./
COPY examples ./examples
ENV NODE_ENV=production \
    PACKSYNC_STATE_DIR=/var/lib/packsync \
    HOME=/var/lib/packsync
USER 10001:10001
VOLUME ["/var/lib/packsync"]
EXPOSE 8080
# /healthz answers while the process is alive; readiness (/readyz) is for the orchestrator. A
# container that runs --listen on another port sets PACKSYNC_HEALTH_PORT to it.
ENV PACKSYNC_HEALTH_PORT=8080
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PACKSYNC_HEALTH_PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# The CLI's memory policy, as its bin's shebang sets it (docs/performance.md, "fleet-cli"), and
# WebAssembly by V8's baseline compiler only (src/cli/wasm-policy.ts): on Node 24 the CLI cannot set
# that flag at run time, so the image passes it here.
ENV MALLOC_ARENA_MAX=2 MALLOC_TRIM_THRESHOLD_=65536
ENTRYPOINT ["/usr/bin/tini", "--", "node", "--max-semi-space-size=4", "--heap-growing-percent=20", "--liftoff-only", "/app/dist/src/cli/main.js"]
CMD ["run", "--source", "/repo", "--watch", "--listen", "0.0.0.0:8080"]
