# One image recipe for the six Pasar services; the build argument APP picks the service. The build
# context is the repository root (an npm workspaces monorepo):
#   docker build --build-arg APP=checkout --build-arg PORT=4001 -t pasar-checkout:local .
# docker-compose.yml builds each service this way. Works with the classic builder and BuildKit.
#
# Build arguments:
#   APP         gateway | checkout | b2b | vendor | admin | notifier (required)
#   PORT        the port the service listens on (its default: 8080, 4001 ... 4005)
#   NODE_IMAGE  the Node 20 base of both stages (default node:20-bookworm-slim; where no container
#               registry answers, deploy/compose/offline/build.sh makes pasar-local/node:20)
# Extra CA certificates (a TLS-intercepting proxy between the build and the npm registry): PEM
# files in deploy/compose/certs/*.pem are trusted by npm in the build stage only; the runtime
# image never contains them (see deploy/compose/certs/README.md).
#
# The runtime stage holds one esbuild bundle of the service (its TypeScript, the workspace
# packages and every pure-JS dependency, the generated Prisma client included), its migrations,
# and a node_modules with only what cannot be bundled (native addons: @node-rs/argon2 for the
# gateway). It runs as the user node and works with a read-only root filesystem given a writable
# /tmp and /app/.data (docs/deploy.md "Containers").

ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /src
ENV PASAR_SKIP_GENERATE=true \
    TURBO_TELEMETRY_DISABLED=1 \
    npm_config_update_notifier=false
COPY deploy/compose/certs/ /tmp/extra-ca/
# npm trusts them through NODE_EXTRA_CA_CERTS, set only when there are any (ca-env.sh)
RUN (cat /tmp/extra-ca/*.pem > /tmp/extra-ca.crt) 2>/dev/null; \
    printf 'if [ -s /tmp/extra-ca.crt ]; then export NODE_EXTRA_CA_CERTS=/tmp/extra-ca.crt; fi\n' > /tmp/ca-env.sh
# Dependencies: the manifests (and packages/db's Prisma generator, linked as a bin by npm) only,
# so this layer - the same for the six services - is rebuilt when a package.json changes, not on
# every source edit. Every workspace is listed so the install matches package-lock.json.
COPY package.json package-lock.json ./
COPY scripts/postinstall.mjs scripts/
COPY apps/admin/package.json apps/admin/
COPY apps/b2b/package.json apps/b2b/
COPY apps/console/package.json apps/console/
COPY apps/checkout/package.json apps/checkout/
COPY apps/gateway/package.json apps/gateway/
COPY apps/notifier/package.json apps/notifier/
COPY apps/vendor/package.json apps/vendor/
COPY packages/bus/package.json packages/bus/
COPY packages/contracts/package.json packages/contracts/
COPY packages/db/package.json packages/db/
COPY packages/db/bin packages/db/bin
COPY packages/service-kit/package.json packages/service-kit/
COPY packages/tax/package.json packages/tax/
COPY packages/testkit/package.json packages/testkit/
COPY tools/stack/package.json tools/stack/
COPY e2e/package.json e2e/
COPY bench/package.json bench/
RUN . /tmp/ca-env.sh && npm install --no-audit --no-fund
# Sources of this service and the shared packages; its Prisma client is generated, then the
# service is bundled into /out (scripts/bundle-service.mjs).
ARG APP
RUN test -n "$APP" || (echo 'build with --build-arg APP=<gateway|checkout|b2b|vendor|admin|notifier>' >&2; exit 1)
COPY tsconfig.base.json ./
COPY packages packages
COPY apps/${APP} apps/${APP}
# the operator console (apps/console), built into the gateway's image only and served from
# CONSOLE_DIR=/app/console; its build reads the OpenAPI document from packages/contracts
COPY apps/console apps/console
COPY scripts/bundle-service.mjs scripts/healthcheck.sh scripts/
RUN . /tmp/ca-env.sh && npm run build -w @pasar/${APP} && node scripts/bundle-service.mjs ${APP} /out \
 && if [ "$APP" = gateway ]; then npm run build -w @pasar/console && cp -r apps/console/dist /out/console; fi

FROM ${NODE_IMAGE} AS runtime
ARG APP
# the service's port (compose and the Kubernetes base pass each service's own)
ARG PORT=8080
# Memory (the target is 120 MiB resident per service, idle and after load):
# - MALLOC_TRIM_THRESHOLD_: glibc gives freed memory back to the system past 128 KiB instead of
#   keeping it in its arenas;
# - --max-semi-space-size=2 (MiB): V8's young generation grows to 3 x 16 MiB under load and stays
#   committed while idle; capped, a service after load is back near its idle size. More frequent
#   minor GCs are the cost: override NODE_OPTIONS where throughput matters more than memory;
# - CMD's --liftoff-only: WebAssembly (Prisma's query compiler) stays on V8's baseline compiler.
#   Optimising it cost 30-50 MiB resident per service (compiler memory left in malloc arenas, and
#   the code) for code that runs only when a query shape is first seen: Prisma caches query plans.
#   npm start runs the services with the same flag (tools/stack SERVICE_NODE_FLAGS).
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PASAR_APP=${APP} \
    PORT=${PORT} \
    CONSOLE_DIR=/app/console \
    MALLOC_TRIM_THRESHOLD_=131072 \
    NODE_OPTIONS=--max-semi-space-size=2
WORKDIR /app
COPY --from=build /out /app
# the only writable place the service uses (local file storage); mount a volume or tmpfs on it
# with a read-only root filesystem
RUN mkdir .data && chown node:node .data
USER node
EXPOSE ${PORT}
# /readyz: migrations applied, database and NATS answer. The gateway serves it on its internal
# listener (METRICS_PORT), the others on PORT. bash's /dev/tcp (scripts/healthcheck.sh), not
# node: the check costs a fork, not a runtime's start. Every 10 s, unhealthy after 30 s of
# failures; 15 s of timeout: a loaded host can take seconds just to start the check.
HEALTHCHECK --interval=10s --timeout=15s --start-period=60s --retries=3 \
  CMD ["bash", "dist/healthcheck.sh"]
# node itself is PID 1's child under `docker run --init` / compose `init: true`, and stops
# gracefully on docker stop's SIGTERM
CMD ["node", "--liftoff-only", "dist/main.js"]
