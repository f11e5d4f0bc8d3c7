# One image for every Roost process; the command picks the process (see docker-compose.yml and k8s/base).
# Node 24, the current LTS (Node 20 reached its end of life in April 2026). The bundles target Node 20.19, the
# oldest Node Roost supports (`engines`), so development on Node 20 keeps working.

FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
COPY apps/accounts/package.json apps/accounts/
COPY apps/gateway/package.json apps/gateway/
COPY apps/push/package.json apps/push/
COPY apps/streaming/package.json apps/streaming/
COPY apps/web/package.json apps/web/
COPY packages/auth/package.json packages/auth/
COPY packages/db/package.json packages/db/
COPY packages/errors/package.json packages/errors/
COPY packages/events/package.json packages/events/
COPY packages/routes/package.json packages/routes/
COPY packages/service/package.json packages/service/
COPY packages/testing/package.json packages/testing/
COPY scripts/complete-lockfile.mjs scripts/
RUN npm ci --no-audit --no-fund
COPY . .
# Each app's bundle (apps/<app>/dist/*.js, scripts/build-app.mjs), and the migration runner.
RUN npm run build \
 && npx esbuild scripts/migrate.ts --bundle --platform=node --target=node20 --outfile=dist/migrate.js \
      --external:pg-native --external:sqlite3 --external:better-sqlite3 --external:mysql --external:mysql2 \
      --external:oracledb --external:tedious --external:pg-query-stream

FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json /app/.npmrc ./
COPY --from=build /app/scripts/complete-lockfile.mjs scripts/
COPY --from=build /app/apps/accounts/package.json apps/accounts/
COPY --from=build /app/apps/gateway/package.json apps/gateway/
COPY --from=build /app/apps/push/package.json apps/push/
COPY --from=build /app/apps/streaming/package.json apps/streaming/
COPY --from=build /app/apps/web/package.json apps/web/
COPY --from=build /app/packages/auth/package.json packages/auth/
COPY --from=build /app/packages/db/package.json packages/db/
COPY --from=build /app/packages/errors/package.json packages/errors/
COPY --from=build /app/packages/events/package.json packages/events/
COPY --from=build /app/packages/routes/package.json packages/routes/
COPY --from=build /app/packages/service/package.json packages/service/
COPY --from=build /app/packages/testing/package.json packages/testing/
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

FROM node:24-bookworm-slim
# The heap limits and malloc settings scripts/start.ts gives each process (docs/performance.md, "Memory"); a pod's own
# environment wins.
ENV NODE_ENV=production BIND_HOST=0.0.0.0 NODE_OPTIONS="--max-old-space-size=256 --max-semi-space-size=4" \
    MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=1048576
WORKDIR /app
COPY --from=deps --chown=root:root /app/node_modules node_modules
COPY --from=build --chown=root:root /app/package.json ./
COPY --from=build --chown=root:root /app/dist dist
COPY --from=build --chown=root:root /app/apps/accounts/dist apps/accounts/dist
COPY --from=build --chown=root:root /app/apps/gateway/dist apps/gateway/dist
COPY --from=build --chown=root:root /app/apps/push/dist apps/push/dist
COPY --from=build --chown=root:root /app/apps/streaming/dist apps/streaming/dist
# The web app's files, served by the gateway at /web-assets (docs/architecture.md, "The web app").
COPY --from=build --chown=root:root /app/apps/web/dist apps/web/dist
# ffmpeg and ffprobe transcode video, audio and GIF uploads (docs/media.md, "Video, audio and GIFs").
RUN apt-get update \
  && apt-get install -y --no-install-recommends ffmpeg \
  && rm -rf /var/lib/apt/lists/*
# The code belongs to root and is read-only to the process, which runs as the image's `node` user (uid 1000).
RUN mkdir -p /data/media && chown node:node /data/media
ENV MEDIA_DIR=/data/media
USER node
EXPOSE 3000 3001 3002 3003 3004 3005
CMD ["node", "apps/gateway/dist/main.js"]
