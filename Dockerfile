# agentplane-server in a container, laid out as `agentplane-server build` lays out the server
# layer of a project's image (src/adapters/images/buildImage.ts): the package with
# its run-time dependencies only at /opt/agentplane, serving on 0.0.0.0:8000 (the port of
# upstream's images) as the unprivileged `node` user, data in /data. Stage 1 builds the
# package from this checkout and prunes the dev tools; stage 2 is the base plus that folder.
# Mount a LangGraph/agentplane project at /project to serve its graphs.
#   docker build -t agentplane-server .
#   docker run -p 8123:8000 -v agentplane-data:/data agentplane-server            # real
#   docker run -p 8123:8000 agentplane-server mock                               # mock
#   docker run -p 8123:8000 -v "$PWD:/project" agentplane-server serve             # your graphs
# Without a registry, BASE can be the base `agentplane-server build` makes from this machine's
# Node.js (`podman images localhost/agentplane-base`); stage 1's `npm ci` still needs the npm
# registry or a warm cache. Every step uses node rather than coreutils, which that base lacks.
# test/docker/dockerfile.test.ts runs these RUN, CMD and HEALTHCHECK commands in a clean
# folder as an unprivileged user.
ARG BASE=node:20-bookworm-slim

FROM ${BASE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY . .
RUN npm run build && npm prune --omit=dev --no-audit --no-fund
RUN node -e "for (const f of ['package.json', 'bin', 'dist', 'spec', 'examples', 'README.md', 'node_modules']) fs.cpSync(f, '/opt/agentplane/' + f, { recursive: true, verbatimSymlinks: true }); for (const d of ['/data', '/project']) fs.mkdirSync(d, { recursive: true })"

FROM ${BASE}
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8000 DATA_DIR=/data
COPY --from=build /opt/agentplane /opt/agentplane
COPY --from=build --chown=node:node /data /data
COPY --from=build --chown=node:node /project /project
USER node
WORKDIR /project
VOLUME /data
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:' + (process.env.PORT || 8000) + '/ok').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
ENTRYPOINT ["node", "/opt/agentplane/bin/agentplane.js"]
CMD ["serve"]
