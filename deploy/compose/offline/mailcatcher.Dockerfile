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
RUN printf '#!/bin/sh\nexec node /opt/mailcatcher/mailcatcher.mjs "$@"\n' > /mailpit && chmod +x /mailpit
USER node
EXPOSE 1025 8025
CMD ["/mailpit"]
