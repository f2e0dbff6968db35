# pasar-local/postgres — a stand-in for the official postgres image from Debian's postgresql
# package (bookworm: PostgreSQL 15). Honours POSTGRES_PASSWORD, POSTGRES_USER and POSTGRES_DB on
# an empty data directory as the official image does; data in /var/lib/postgresql/data.
ARG BASE_IMAGE=pasar-local/debian:bookworm
FROM ${BASE_IMAGE}
COPY certs/ /tmp/extra-ca/
RUN cat /tmp/extra-ca/*.pem > /tmp/extra-ca.crt 2>/dev/null; \
    apt-get update -o Acquire::https::CAInfo=/tmp/extra-ca.crt \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql-15 postgresql-client-15 \
 && rm -rf /var/lib/apt/lists/* /tmp/extra-ca /tmp/extra-ca.crt \
 && mkdir -p /var/lib/postgresql/data /var/run/postgresql \
 && chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql \
 && ln -s /usr/lib/postgresql/15/bin/* /usr/local/bin/ 2>/dev/null; true
COPY postgres-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
ENV PGDATA=/var/lib/postgresql/data
STOPSIGNAL SIGINT
EXPOSE 5432
ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]
CMD ["postgres"]
