# syntax=docker/dockerfile:1
# A PostgreSQL node under Patroni, from Debian's own packages (the versions
# scripts/ha-cluster and the failover test run: Patroni 3.0, PostgreSQL 15).
#   docker compose -f docker/compose.yaml --profile ha up -d
FROM debian:bookworm-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends patroni python3-etcd python3-psycopg2 postgresql-15 \
    && rm -rf /var/lib/apt/lists/* \
    && install -d -o postgres -g postgres -m 700 /var/lib/postgresql/patroni
COPY deploy/patroni/patroni.yml deploy/patroni/post_init.sh /etc/patroni/
USER postgres
EXPOSE 5432 8008
CMD ["patroni", "/etc/patroni/patroni.yml"]
