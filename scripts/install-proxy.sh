#!/bin/sh
# Installs Debian's HAProxy for `gameclub cluster` and its browser tests when it is
# missing and we are root. Without it those tests skip themselves with a loud message.
if command -v haproxy >/dev/null 2>&1 || [ -x /usr/sbin/haproxy ]; then exit 0; fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "Installing HAProxy for the cluster tests (apt-get install haproxy)..."
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq haproxy >/dev/null) \
        || echo "!!! Could not install HAProxy: the cluster tests will be SKIPPED."
    # The package starts a system-wide proxy on port 80 of its own; the club runs its own.
    if command -v systemctl >/dev/null 2>&1; then
        systemctl disable --now haproxy >/dev/null 2>&1 || true
    fi
else
    echo "!!! HAProxy is missing and we are not root: the cluster tests will be SKIPPED."
fi
exit 0
