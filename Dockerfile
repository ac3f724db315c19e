# One image for every service: the first argument (or SERVICE) picks which one
# runs: `docker run IMAGE swap-rail`, `... dating-venue`, `... launch-router`.
# compose.yaml runs the whole set. The project's own machines have no Docker
# daemon, so this image is not built there; the production rehearsal
# (packages/rehearsal) runs the same install and start steps without it
# (README, "Deploy"; docs/operations.md).
#
# Node 24 LTS on Debian 12 (bookworm), slim. The exact version is pinned so a
# rebuild gets the Node the image was tested with; move it with the README.
FROM node:24.22.3-bookworm-slim

# Every service listens on 8080 in the image, on every interface, and keeps
# local files (the venue's kept match index) under /data.
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATA_DIR=/data \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false \
    NPM_CONFIG_AUDIT=false

WORKDIR /app

# The production install: the lockfile's dependencies of every workspace, no
# devDependencies, then the source (.dockerignore leaves out tests, benches'
# code, data and node_modules). The code belongs to root and is read-only to
# the service's user.
COPY . .
RUN npm ci --omit=dev \
  && npm cache clean --force \
  && mkdir -p /data \
  && chown node:node /data

# The unprivileged user the node image provides (uid 1000).
USER node
VOLUME ["/data"]
EXPOSE 8080

# /health answers 200 while the service and its database are up (a facilitator
# or chain that is down degrades it, it does not fail it). Node's own fetch:
# the slim image has no curl. Every 30 s: each check also asks the facilitator
# and the chains, so a tight interval costs their quota.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/health',{signal:AbortSignal.timeout(4000)}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]

# SIGTERM (docker stop, a rolling restart) reaches node itself (the entry point
# execs it): the service stops accepting, answers what is in flight, closes its
# pool and exits 0 within 10 s. Give it that long (compose: stop_grace_period).
STOPSIGNAL SIGTERM
ENTRYPOINT ["/app/ops/docker/start-service.sh"]
CMD []
