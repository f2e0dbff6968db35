# pasar-local/node:20 — a stand-in for node:20-bookworm-slim where no container registry answers.
# FROM the debootstrapped Debian (pasar-local/debian:bookworm); node and npm are the build
# machine's (build.sh puts them in the context), as Debian bookworm's own nodejs is 18.
# Like the official image: /usr/local/bin/node, npm, npx and the user node (uid 1000).
ARG BASE_IMAGE=pasar-local/debian:bookworm
FROM ${BASE_IMAGE}
COPY node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
 && groupadd --gid 1000 node \
 && useradd --uid 1000 --gid node --shell /bin/bash --create-home node \
 && node --version && npm --version
CMD ["node"]
