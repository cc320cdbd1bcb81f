#!/bin/sh
# Patroni's post_init: once, on the first primary, with a superuser connection
# string as $1. Makes the gateways' role and database (the gateway makes its
# tables itself at start).
set -eu
: "${PUSHGATE_DB_PASSWORD:?set PUSHGATE_DB_PASSWORD for the gateways' role}"
psql "$1" -v ON_ERROR_STOP=1 -v password="$PUSHGATE_DB_PASSWORD" <<'SQL'
CREATE ROLE pushgate LOGIN PASSWORD :'password';
CREATE DATABASE pushgate OWNER pushgate;
SQL
