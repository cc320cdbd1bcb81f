#!/bin/sh
# The container's entrypoint: `serve` unless another pushgate command is named;
# flags alone go to `serve`. With APNS_GATEWAY_ENV (the emulator's gateway.env)
# those settings are loaded first. A database directory the user cannot write is
# reported in one line before the gateway starts.
set -eu

if [ "$#" -eq 0 ] || [ "${1#-}" != "$1" ]; then
    set -- serve "$@"
fi

if [ -n "${APNS_GATEWAY_ENV:-}" ]; then
    waited=0
    while [ ! -f "$APNS_GATEWAY_ENV" ]; do
        if [ "$waited" -ge 30 ]; then
            echo "pushgate-entrypoint: $APNS_GATEWAY_ENV did not appear within 30 s" >&2
            exit 1
        fi
        sleep 1
        waited=$((waited + 1))
    done
    set -a
    # shellcheck disable=SC1090
    . "$APNS_GATEWAY_ENV"
    set +a
fi

if [ "$1" = serve ]; then
    database="${PUSHGATE_DATABASE:-pushgate.sqlite}"
    case "$database" in
        postgres://* | postgresql://*) ;;
        *)
            directory=$(dirname "$database")
            if [ ! -w "$directory" ]; then
                echo "pushgate-entrypoint: cannot write the database directory $directory (mount a volume owned by uid $(id -u))" >&2
                exit 1
            fi
            ;;
    esac
fi

exec pushgate "$@"
