#!/bin/sh
# The image's entry point: runs `hindsight <command>` (start, worker, users ...) in this process's place,
# so the signals of `docker stop` reach it.
# - A worker that runs as root on the host's network (the docker executor, docs/deploy.md) first picks
#   the iptables backend the host's Docker uses: rules written with the other one would sit in a table
#   the host's own rules are not in.
# - HINDSIGHT_WORKER_PORT=auto picks a free port for the worker's /readyz and writes it to
#   /tmp/hindsight-worker-port for the healthcheck: workers that share the host's network cannot all
#   take one fixed port.
set -eu
if [ "$(id -u)" = 0 ] && command -v iptables-legacy >/dev/null 2>&1; then
  if iptables-legacy -S 2>/dev/null | grep -q DOCKER && ! iptables-nft -S 2>/dev/null | grep -q DOCKER; then
    update-alternatives --set iptables /usr/sbin/iptables-legacy >/dev/null
  fi
fi
if [ "${HINDSIGHT_WORKER_PORT:-}" = auto ]; then
  HINDSIGHT_WORKER_PORT="$(node -e '
    const s = require("node:net").createServer();
    s.listen(0, process.env.HINDSIGHT_HOST || "127.0.0.1", () => { console.log(s.address().port); s.close(); });')"
  export HINDSIGHT_WORKER_PORT
  echo "$HINDSIGHT_WORKER_PORT" >/tmp/hindsight-worker-port
fi
exec node /opt/hindsight/packages/cli/bin/hindsight.js "$@"
