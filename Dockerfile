# Two images from one build. `collector` (the default, last stage) holds only the collector's compiled JS, its
# dashboard and its production dependencies, made by `pnpm deploy --prod`; `demo` holds the whole workspace
# for the example MCP server and the scripted agent, which run from TypeScript with tsx.
# better-sqlite3 and zstd-napi compile from source when no prebuilt binary can be downloaded, hence the build tools.
FROM node:20-bookworm-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/* \
 && npm install -g pnpm@12.4.2
WORKDIR /app
COPY . .
RUN pnpm install --frozen-lockfile && pnpm build \
 && pnpm --filter @toolscope/collector deploy --prod /out/collector

FROM node:20-bookworm-slim AS demo
RUN npm install -g pnpm@12.4.2
WORKDIR /app
COPY --from=build /app /app
USER node

FROM node:20-bookworm-slim AS collector
WORKDIR /app
COPY --from=build /out/collector /app
ENV NODE_ENV=production
# glibc's malloc maps buffers of 32 KiB and up on their own and unmaps them when freed, instead of keeping its
# heap at the size of the busiest moment: under a flood the resident set then stays within --memory-limit-mib
# (docs/reliability.md, "Memory limit"; packages/collector/src/ingest/malloc-tuning.test.ts checks this line).
ENV MALLOC_MMAP_THRESHOLD_=32768
# The default SQLite store lives in /data: created here and owned by the unprivileged user the image runs as,
# and declared a volume, so `docker run` without a mount still starts (and a mount keeps the data).
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]
USER node
# The collector's OTLP/HTTP port (also the dashboard, API, /metrics, /healthz and /readyz), and OTLP/gRPC.
EXPOSE 4318 4317
CMD ["node", "bin/toolscope.js", "serve", "--host", "0.0.0.0", "--db", "/data/toolscope.db"]
