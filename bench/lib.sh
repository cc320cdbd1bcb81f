# What the benchmarks share: free ports, waiting for a log line, the stand-ins'
# certificates, each thread's CPU time.
# Sourced by bench/fanout.sh and bench/webpush.sh.

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_for() { # file text
    for _ in $(seq 300); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
    cat "$1" >&2; return 1
}

# CPU time in nanoseconds, per thread of the processes named (`schedstat`: time on a
# CPU, in ns). /proc/PID/stat counts clock ticks (10 ms): at 10,000 pushes a tick is
# 1 µs a push, a step as big as the differences measured.
cpu_snapshot() { # file pid…
    local file="$1" pid task ns rest
    shift
    for pid in "$@"; do
        for task in /proc/"$pid"/task/*; do
            read -r ns rest <"$task/schedstat" 2>/dev/null && echo "${task##*/} $ns"
        done
    done >"$file"
}
# The CPU time between two snapshots, in seconds: a thread started since counts whole.
# One that ended since is missing from the second and counts nothing: libdispatch ends
# a worker thread after some seconds idle, so it did no work in between (2446a51's
# build ends two during a 100,000-device trigger; its ticks said 3.00 s, this 2.99 s).
cpu_seconds() { # before after
    awk 'NR == FNR { before[$1] = $2; next } { total += $2 - ($1 in before ? before[$1] : 0) }
        END { printf "%.6f", total / 1e9 }' "$1" "$2"
}

# A throw-away CA (DIR/ca.crt) and a server certificate for localhost and 127.0.0.1
# (DIR/server.crt, DIR/server.key) for the nginx stand-ins.
stand_in_certificates() { # dir
    openssl ecparam -name prime256v1 -genkey -noout -out "$1/ca.key" 2>/dev/null
    openssl req -x509 -new -key "$1/ca.key" -sha256 -days 2 -subj "/CN=bench CA" \
        -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign" -out "$1/ca.crt" 2>/dev/null
    openssl ecparam -name prime256v1 -genkey -noout -out "$1/server.key" 2>/dev/null
    openssl req -new -key "$1/server.key" -subj "/CN=localhost" -out "$1/server.csr" 2>/dev/null
    printf 'basicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\nsubjectAltName=DNS:localhost,IP:127.0.0.1\n' >"$1/ext"
    openssl x509 -req -in "$1/server.csr" -CA "$1/ca.crt" -CAkey "$1/ca.key" -CAcreateserial \
        -days 2 -sha256 -extfile "$1/ext" -out "$1/server.crt" 2>/dev/null
}
