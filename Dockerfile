# agentplane-server in a container: the package built from this checkout (stage 1), installed
# with its runtime dependencies only into a slim image that runs as the unprivileged `node`
# user (stage 2). Data (journal, snapshots, API keys) lives on the /data volume; mount a
# LangGraph/agentplane project at /project to serve its graphs.
#   docker build -t agentplane-server .
#   docker run -p 8123:8123 -v agentplane-data:/data agentplane-server            # real
#   docker run -p 8123:8123 agentplane-server mock                               # mock
#   docker run -p 8123:8123 -v "$PWD:/project" agentplane-server serve             # your graphs
# test/docker/dockerfile.test.ts runs these RUN, CMD and HEALTHCHECK commands in a clean
# folder as an unprivileged user (there is no container engine on the test machine).

FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY . .
RUN npm run build && npm pack --ignore-scripts --pack-destination /src

FROM node:20-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8123 DATA_DIR=/data
WORKDIR /opt/agentplane
COPY --from=build /src/agentplane-server-*.tgz /opt/agentplane/
RUN npm install --omit=dev --no-audit --no-fund --no-save ./agentplane-server-*.tgz && rm agentplane-server-*.tgz
RUN mkdir -p /data /project && chown node:node /data /project
USER node
WORKDIR /project
VOLUME /data
EXPOSE 8123
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:' + (process.env.PORT || 8123) + '/ok').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
ENTRYPOINT ["/opt/agentplane/node_modules/.bin/agentplane-server"]
CMD ["serve"]
