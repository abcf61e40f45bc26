#!/bin/sh
# Installs Debian's Chromium for the browser tests when it is missing and we are root.
# Without it the browser tests skip themselves with a loud message.
if command -v chromium >/dev/null 2>&1; then exit 0; fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "Installing Chromium for the browser tests (apt-get install chromium)..."
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
        || echo "!!! Could not install Chromium: the browser tests will be SKIPPED."
else
    echo "!!! Chromium is missing and we are not root: the browser tests will be SKIPPED."
fi
exit 0
