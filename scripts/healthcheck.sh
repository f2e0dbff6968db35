#!/usr/bin/env bash
# The images' HEALTHCHECK (Dockerfile, docker-compose.yml, deploy/compose/cluster.yml), copied to
# /app/dist/healthcheck.sh by scripts/bundle-service.mjs: GET /readyz on PORT (migrations applied,
# database and NATS answer); the gateway's on its internal listener METRICS_PORT, /healthz on PORT
# when it has none. bash's /dev/tcp, not node: a check every interval in every container costs a
# fork, not a JavaScript runtime starting (sixteen containers on two cores spent 0.4 core on that).
# Exits 0 on a 200, 1 otherwise (refused, no status line within 4 s, another status).
set -u
if [[ -n ${METRICS_PORT:-} ]]; then
  port=$METRICS_PORT path=/readyz
elif [[ ${PASAR_APP:-} == gateway ]]; then
  port=${PORT:-8080} path=/healthz
else
  port=${PORT:?} path=/readyz
fi
exec 3<>"/dev/tcp/127.0.0.1/$port" || exit 1
printf 'GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n' "$path" >&3
IFS=' ' read -r -t 4 _ status _ <&3 || exit 1
[[ $status == 200 ]]
