# pasar-local/nats — a stand-in for nats:2.10-alpine from Debian's nats-server package (bookworm:
# 2.9, JetStream included), with wget for the compose healthcheck. Like the official image, a
# command that starts with "-" gets nats-server in front of it.
ARG BASE_IMAGE=pasar-local/debian:bookworm
FROM ${BASE_IMAGE}
COPY certs/ /tmp/extra-ca/
RUN cat /tmp/extra-ca/*.pem > /tmp/extra-ca.crt 2>/dev/null; \
    apt-get update -o Acquire::https::CAInfo=/tmp/extra-ca.crt \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nats-server wget \
 && rm -rf /var/lib/apt/lists/* /tmp/extra-ca /tmp/extra-ca.crt \
 && printf '#!/bin/sh\ncase "${1:-}" in -*) exec nats-server "$@";; esac\nexec "$@"\n' > /usr/local/bin/docker-entrypoint.sh \
 && chmod +x /usr/local/bin/docker-entrypoint.sh \
 && mkdir -p /data
EXPOSE 4222 8222
ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]
CMD ["nats-server", "-js", "-sd", "/data", "-m", "8222"]
