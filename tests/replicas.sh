#!/usr/bin/env bash
# Two fabric-tco processes on one database behind nginx (Debian's package), for the replica
# tests and for trying a replicated setup by hand.
#
#   tests/replicas.sh up DIR        start replicas a and b and nginx; writes DIR/lb.url
#   tests/replicas.sh restart DIR a SIGTERM replica a (in-flight requests finish), start it again
#   tests/replicas.sh down DIR      stop everything started in DIR
#
# Environment: FABRIC_TCO_BIN (default target/release/fabric-tco), FABRIC_TCO_DATABASE_URL
# (default postgres://postgres@127.0.0.1:5432/test), NGINX (default: nginx on the PATH or
# /usr/sbin/nginx). nginx retries a request on the other replica when one refuses the
# connection or answers 502/503 while stopping (also a POST: saves carry an Idempotency-Key, so a
# retry stores nothing twice).
set -euo pipefail

cmd=${1:?usage: replicas.sh up|restart|down DIR [a|b]}
dir=${2:?usage: replicas.sh up|restart|down DIR [a|b]}
bin=${FABRIC_TCO_BIN:-target/release/fabric-tco}
db=${FABRIC_TCO_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}
nginx=${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# start NAME: the replica on its port (DIR/NAME.port), waits for /readyz (20 s).
start() {
  local name=$1 port
  port=$(cat "$dir/$name.port")
  FABRIC_TCO_BIND=127.0.0.1:$port FABRIC_TCO_DATABASE_URL=$db FABRIC_TCO_LOG_FORMAT=text \
    RUST_LOG=warn "$bin" >>"$dir/$name.log" 2>&1 &
  echo $! >"$dir/$name.pid"
  for _ in $(seq 200); do
    if curl -fsS -m 1 "http://127.0.0.1:$port/readyz" >/dev/null 2>&1; then return 0; fi
    kill -0 "$(cat "$dir/$name.pid")" 2>/dev/null || { cat "$dir/$name.log" >&2; return 1; }
    sleep 0.1
  done
  echo "replica $name did not become ready" >&2
  return 1
}

stop() {
  local pidfile="$dir/$1.pid"
  [ -f "$pidfile" ] || return 0
  local pid
  pid=$(cat "$pidfile")
  kill -TERM "$pid" 2>/dev/null || true
  while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
  rm -f "$pidfile"
}

case $cmd in
  up)
    [ -x "$nginx" ] || { echo "nginx not found (apt-get install nginx)" >&2; exit 3; }
    mkdir -p "$dir/tmp"
    free_port >"$dir/a.port"
    free_port >"$dir/b.port"
    lb=$(free_port)
    start a
    start b
    cat >"$dir/nginx.conf" <<CONF
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/nginx-error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $dir/tmp/body;
  proxy_temp_path $dir/tmp/proxy;
  fastcgi_temp_path $dir/tmp/fastcgi;
  uwsgi_temp_path $dir/tmp/uwsgi;
  scgi_temp_path $dir/tmp/scgi;
  upstream fabric_tco {
    server 127.0.0.1:$(cat "$dir/a.port") max_fails=0;
    server 127.0.0.1:$(cat "$dir/b.port") max_fails=0;
    keepalive 16;
  }
  server {
    listen 127.0.0.1:$lb;
    location / {
      proxy_pass http://fabric_tco;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_connect_timeout 1s;
      proxy_next_upstream error timeout http_502 http_503 non_idempotent;
      proxy_next_upstream_tries 4;
    }
  }
}
CONF
    "$nginx" -p "$dir" -e "$dir/nginx-error.log" -c "$dir/nginx.conf"
    echo "http://127.0.0.1:$lb" >"$dir/lb.url"
    cat "$dir/lb.url"
    ;;
  restart)
    name=${3:?which replica: a or b}
    stop "$name"
    start "$name"
    ;;
  down)
    [ -f "$dir/nginx.pid" ] && "$nginx" -p "$dir" -e "$dir/nginx-error.log" -c "$dir/nginx.conf" -s stop 2>/dev/null || true
    stop a
    stop b
    ;;
  *)
    echo "usage: replicas.sh up|restart|down DIR [a|b]" >&2
    exit 2
    ;;
esac
