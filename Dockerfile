# One image for every Waybill service; the command picks which one runs, e.g.
#   docker run waybill services/orders/dist/main.js
# Operator commands run in a service's container with npm (compiled code, no dev tools), e.g.
#   kubectl -n waybill exec deploy/identity -- npm run admin -- reset-password --email admin@example.com
#   kubectl -n waybill exec deploy/dispatcher -- npm run dead-letters -- list --service dispatcher
# Build stage: install everything, compile the services to JavaScript (npm run build) and build
# the clients (SDK, CLI, console). Runtime stage: production dependencies only, the compiled
# services and the console's static files; no sources, tests, benchmarks or dev tools.
# Pinned to an exact Node LTS release so a rebuild gives the same runtime.
FROM node:24.21.0-bookworm-slim AS build
WORKDIR /app
ENV NPM_CONFIG_UPDATE_NOTIFIER=false NPM_CONFIG_FUND=false
# Manifests first so source edits keep the dependency layer cached. The workspaces' manifests
# must be there for npm ci to lay out the workspace links.
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY clients/ clients/
# npm ci runs the root `prepare` (builds the clients), which needs the whole clients/ tree.
COPY services/ services/
COPY packages/ packages/
COPY scripts/ scripts/
COPY proto/ proto/
RUN npm ci && npm run build
# What the runtime stage needs, staged in two folders so the dependency layer stays cached when
# only code changes: every workspace's package.json, then every package's compiled dist/.
RUN mkdir -p /stage/manifests /stage/code \
 && find packages services clients -mindepth 2 -maxdepth 2 -name package.json -exec cp --parents {} /stage/manifests \; \
 && for d in packages/* services/* clients/sdk clients/console; do if [ -d "$d/dist" ]; then cp -r --parents "$d/dist" /stage/code; fi; done \
 && find /stage/code -name '*.tsbuildinfo' -delete

FROM node:24.21.0-bookworm-slim AS runtime
WORKDIR /app
# npm's cache and logs in /tmp: the root filesystem is read-only in Kubernetes, /tmp is a volume.
ENV NPM_CONFIG_UPDATE_NOTIFIER=false NPM_CONFIG_FUND=false NPM_CONFIG_CACHE=/tmp/.npm NODE_ENV=production \
    CONSOLE_DIR=/app/clients/console/dist
COPY package.json package-lock.json ./
# Workspace manifests only (npm ci wants them to lay out the workspace links).
COPY --from=build /stage/manifests/ ./
# Only the server's workspaces (the libraries and the services): the clients' dependencies are not
# needed at run time (the console is served as built files, the CLI and SDK are not in the image).
# --ignore-scripts: `prepare` builds the clients with dev tools, and they are built already.
RUN npm ci --omit=dev --ignore-scripts $(for d in packages/* services/*; do printf -- '--workspace=%s ' "$d"; done) \
 && npm cache clean --force
# The compiled packages (each package's dist/) and the clients' built files.
COPY --from=build /stage/code/ ./
# The operator commands behind `npm run admin` and `npm run dead-letters` (bin/operator-command.mjs
# runs their compiled code here, where tsx is not installed).
COPY bin/ bin/

# The base image's unprivileged user (uid 1000); nothing in /app is writable by it.
USER node

# edge HTTP, MQTT (plain and TLS), gRPC and ops ports (documentation only).
EXPOSE 8080 1883 8883 50051-50055 9100-9105

# Node is PID 1's only process, so SIGTERM reaches the service, which drains. Its flags are the
# services' own (packages/platform/node-flags.ts).
ENTRYPOINT ["node", "--initial-old-space-size=128", "--no-allocation-site-pretenuring"]
CMD ["services/edge/dist/main.js"]
