# One image for every Waybill service; the command picks which one runs,
# e.g. `docker run waybill services/orders/main.ts`.
FROM node:20-bookworm-slim

WORKDIR /app
# No registry calls at run time (npx/npm would otherwise check for updates).
ENV NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false

# Dependencies first so source edits keep this layer cached.
COPY package.json package-lock.json ./
# --ignore-scripts: the sources are not copied yet, so `prepare` (the receiver helper build) has
# nothing to compile here; the services run from their TypeScript sources.
RUN npm ci --ignore-scripts && npm cache clean --force

COPY . .

ENV NODE_ENV=production
# The base image's unprivileged user (uid 1000).
USER node

# edge HTTP, MQTT, gRPC and ops ports (documentation only).
EXPOSE 8080 1883 50051-50054 9101-9105

# tsx, loaded into node itself, runs the TypeScript sources directly (no build step). Node is
# PID 1's only process, so SIGTERM reaches the service, which drains; the tsx CLI or npx in
# between would relay signals and kill a service that takes longer than a few ms to react.
ENTRYPOINT ["node", "--import", "tsx"]
CMD ["services/launcher/main.ts"]
