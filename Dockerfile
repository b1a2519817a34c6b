# One image for every Waybill service; the command picks which one runs, e.g.
#   docker run waybill dist/services/orders/main.js
# Build stage: install everything, compile the services to JavaScript (npm run build) and build
# the clients (SDK, CLI, console). Runtime stage: production dependencies only, the compiled
# services and the console's static files; no sources, tests, benchmarks or dev tools.
# Pinned to an exact Node LTS release so a rebuild gives the same runtime.
FROM node:20.19.5-bookworm-slim AS build
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

FROM node:20.19.5-bookworm-slim AS runtime
WORKDIR /app
ENV NPM_CONFIG_UPDATE_NOTIFIER=false NPM_CONFIG_FUND=false NODE_ENV=production \
    CONSOLE_DIR=/app/clients/console/dist
COPY package.json package-lock.json ./
# Workspace manifests only (npm ci wants them); the clients' built files come from the build stage.
COPY --from=build /app/clients/sdk/package.json clients/sdk/package.json
COPY --from=build /app/clients/cli/package.json clients/cli/package.json
COPY --from=build /app/clients/console/package.json clients/console/package.json
# --ignore-scripts: `prepare` builds the clients with dev tools, and they are built already.
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force
COPY --from=build /app/dist dist/
COPY --from=build /app/clients/sdk/dist clients/sdk/dist/
COPY --from=build /app/clients/console/dist clients/console/dist/

# The base image's unprivileged user (uid 1000); nothing in /app is writable by it.
USER node

# edge HTTP, MQTT (plain and TLS), gRPC and ops ports (documentation only).
EXPOSE 8080 1883 8883 50051-50055 9100-9105

# Node is PID 1's only process, so SIGTERM reaches the service, which drains.
ENTRYPOINT ["node"]
CMD ["dist/services/edge/main.js"]
