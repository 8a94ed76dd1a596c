# syntax=docker/dockerfile:1
# The ledger's services as containers, one target each, all from one build:
#   docker build --target ingest -t a2a-ledger-ingest .      (reconciler, projector, dispatcher, proxy alike)
#   docker run -e KAFKA_BROKERS=… -e SCHEMA_REGISTRY_URL=… -p 18090:18090 a2a-ledger-ingest
# Each runs its compiled entry point (`node services/<name>/dist/main.js`, from `npm run build`) with
# no TypeScript loader. Configuration is the services' environment variables (see their READMEs); the
# HTTP services listen on 0.0.0.0 here so that a published port reaches them.
# No container engine is at hand where this repository is developed and tested: this file is not built
# there. infra/src/dockerfile.test.ts keeps it true (every path it copies exists, every entry point it
# runs is made by the build).

FROM node:20-bookworm-slim AS build
# better-sqlite3 (dispatcher, projector, proxy) compiles from source when no prebuilt binary fits.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json turbo.json tsconfig.base.json tsconfig.build.json ./
COPY scripts/build-workspace.ts scripts/
COPY packages packages
COPY schemas schemas
COPY infra infra
COPY cli cli
COPY clients clients
COPY services services
COPY mesh mesh
COPY tests tests
COPY ops ops
RUN npm ci --no-audit --no-fund
RUN npm run build && npm prune --omit=dev --no-audit --no-fund && rm -rf .turbo

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build --chown=node:node /app /app
USER node

FROM runtime AS ingest
ENV A2A_LEDGER_INGEST_HOST=0.0.0.0
EXPOSE 18090
CMD ["node", "services/ingest/dist/main.js"]

FROM runtime AS reconciler
CMD ["node", "services/reconciler/dist/main.js"]

FROM runtime AS projector
ENV A2A_LEDGER_PROJECTOR_HOST=0.0.0.0
EXPOSE 18095
CMD ["node", "services/projector/dist/main.js"]

FROM runtime AS dispatcher
ENV A2A_LEDGER_DISPATCHER_HOST=0.0.0.0
EXPOSE 18096
CMD ["node", "services/dispatcher/dist/main.js"]

FROM runtime AS proxy
ENV A2A_LEDGER_PROXY_HOST=0.0.0.0
EXPOSE 18100
CMD ["node", "services/proxy/dist/main.js"]
