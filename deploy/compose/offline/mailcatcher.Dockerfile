# pasar-local/mailcatcher — a stand-in for axllent/mailpit where no container registry answers
# (mailcatcher.mjs: SMTP on 1025, Mailpit's message API on 8025, `/mailpit readyz`).
ARG NODE_IMAGE=pasar-local/node:20
FROM ${NODE_IMAGE}
WORKDIR /opt/mailcatcher
COPY certs/ /tmp/extra-ca/
RUN cat /tmp/extra-ca/*.pem > /tmp/extra-ca.crt 2>/dev/null; \
    echo '{"name":"mailcatcher","private":true,"type":"module"}' > package.json \
 && NODE_EXTRA_CA_CERTS=/tmp/extra-ca.crt npm install --no-audit --no-fund --omit=dev smtp-server@3 mailparser@3 \
 && rm -rf /root/.npm /tmp/extra-ca /tmp/extra-ca.crt
COPY mailcatcher.mjs ./
# `/mailpit readyz` (the healthcheck) asks the HTTP API without loading the SMTP modules
RUN printf '#!/bin/sh\nif [ "$1" = readyz ]; then exec node -e "fetch(\047http://127.0.0.1:8025/readyz\047).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"; fi\nexec node /opt/mailcatcher/mailcatcher.mjs "$@"\n' > /mailpit && chmod +x /mailpit
USER node
EXPOSE 1025 8025
CMD ["/mailpit"]
