# One image recipe for the six Pasar services; the build argument APP picks the service. The build
# context is the repository root (an npm workspaces monorepo):
#   docker build --build-arg APP=checkout --build-arg PORT=4001 -t pasar-checkout .
# docker-compose.yml builds each service this way.

ARG APP

FROM node:20-bookworm-slim AS base
# Prisma's schema engine (migrations on start) needs OpenSSL, which the slim image lacks.
RUN apt-get update \
 && apt-get install -y --no-install-recommends openssl ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app

# Dependencies: only the manifests, so this layer is rebuilt when a package.json changes, not on
# every source edit. Every workspace is listed so the install matches package-lock.json. The root
# postinstall skips generating the Prisma clients here (no sources yet); `build` below does it.
FROM base AS deps
COPY package.json package-lock.json ./
COPY scripts/postinstall.mjs scripts/
COPY apps/admin/package.json apps/admin/
COPY apps/b2b/package.json apps/b2b/
COPY apps/checkout/package.json apps/checkout/
COPY apps/gateway/package.json apps/gateway/
COPY apps/notifier/package.json apps/notifier/
COPY apps/vendor/package.json apps/vendor/
COPY packages/bus/package.json packages/bus/
COPY packages/contracts/package.json packages/contracts/
COPY packages/db/package.json packages/db/
COPY packages/service-kit/package.json packages/service-kit/
COPY packages/tax/package.json packages/tax/
COPY packages/testkit/package.json packages/testkit/
COPY tools/stack/package.json tools/stack/
COPY e2e/package.json e2e/
COPY bench/package.json bench/
RUN npm install --no-audit --no-fund

# Sources of this service and the shared packages; `build` generates its Prisma client.
FROM deps AS build
ARG APP
RUN test -n "$APP" || (echo 'build with --build-arg APP=<gateway|checkout|b2b|vendor|admin|notifier>' >&2; exit 1)
COPY tsconfig.base.json ./
COPY packages packages
COPY apps/${APP} apps/${APP}
RUN npm run build -w @pasar/${APP}

# Runtime: the service runs from TypeScript (node --import tsx), so it keeps the installed node_modules.
FROM base AS runtime
ARG APP
ARG PORT=8080
ENV NODE_ENV=production \
    PASAR_APP=${APP} \
    PORT=${PORT}
COPY --from=build /app/package.json /app/tsconfig.base.json ./
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/packages packages
COPY --from=build /app/apps/${APP} apps/${APP}
# Writable data directory (local storage driver); the code itself stays read-only for `node`.
RUN mkdir .data && chown node:node .data
USER node
EXPOSE ${PORT}
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=5 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.PORT+'/healthz').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"]
# exec: node is the process that receives `docker stop`'s SIGTERM and stops gracefully
CMD ["sh", "-c", "exec node --import tsx apps/$PASAR_APP/src/main.ts"]
