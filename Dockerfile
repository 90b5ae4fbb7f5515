# The platform's image: one image for both roles, chosen by the command.
#   docker run IMAGE start     the management API, registry and web app (HINDSIGHT_WORKERS=0: API only)
#   docker run IMAGE worker    a scenario worker alone (docs/deploy.md)
# No public registry is needed: the base is given as a build argument, e.g. the Debian image that
# deploy/base-image.sh makes locally (Node 20, npm, iptables, ca-certificates).
#   deploy/base-image.sh && docker build --build-arg BASE_IMAGE=hindsight-base:bookworm-node20 -t hindsight .
ARG BASE_IMAGE=hindsight-base:bookworm-node20

# --- build: every dependency, the compiled packages and the web app; then only production dependencies.
FROM ${BASE_IMAGE} AS build
WORKDIR /opt/hindsight
# The manifests first, so the dependency layer is reused while only sources change.
COPY package.json package-lock.json ./
COPY packages/core/package.json packages/core/
COPY packages/engine/package.json packages/engine/
COPY packages/gateway/package.json packages/gateway/
COPY packages/marketdata/package.json packages/marketdata/
COPY packages/platform/package.json packages/platform/
COPY packages/sdk/package.json packages/sdk/
COPY packages/cli/package.json packages/cli/
COPY packages/web/package.json packages/web/
# A compiler for argon2 (password hashing): its prebuilt binary crashes on Debian's glibc, so it is
# built from source against the base's Node headers, as `npm install` does on a Debian host.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
# --ignore-scripts: the root `prepare` would build before the sources are here (it runs below). The
# other install scripts skipped are optional (ssh2's and cpu-features' accelerators) or not needed
# (esbuild's binary comes in an npm package).
RUN npm ci --ignore-scripts --no-audit --no-fund \
  && npm rebuild argon2 --build-from-source --no-audit --no-fund \
  && node -e 'require("argon2")'
COPY . .
RUN npm run build && npm prune --omit=dev --no-audit --no-fund \
  && rm -rf /root/.npm packages/*/tsconfig.tsbuildinfo packages/web/node_modules

# --- the image: the built tree on the base, run as an unprivileged user (the worker overrides it:
# it drives the Docker daemon and the host's firewall, docs/deploy.md).
FROM ${BASE_IMAGE}
RUN useradd --system --uid 10001 --user-group --home-dir /var/lib/hindsight --create-home hindsight
COPY --from=build /opt/hindsight /opt/hindsight
ENV NODE_ENV=production \
    HINDSIGHT_HOST=0.0.0.0 \
    HINDSIGHT_PORT=8000 \
    HINDSIGHT_DATA_DIR=/var/lib/hindsight
WORKDIR /var/lib/hindsight
USER hindsight
EXPOSE 8000
VOLUME /var/lib/hindsight
ENTRYPOINT ["/opt/hindsight/deploy/entrypoint.sh"]
CMD ["start"]
