# Sourced by the GPU tests: start a faro-gpud and learn where it listens.
#
#   gpud_start DIR ARGS...   runs ./faro-gpud ARGS... --listen 127.0.0.1:0 in the
#                            background (output in DIR/out, log in DIR/err); sets
#                            srv (its pid) and addr (127.0.0.1:PORT it printed);
#                            exits 99 when it does not say where it listens
#   gpud_stop                kills it (for a trap on EXIT)
gpud_start() {
    _dir=$1
    shift
    ./faro-gpud "$@" --listen 127.0.0.1:0 >"$_dir/out" 2>"$_dir/err" &
    srv=$!
    _port=
    for _i in $(seq 100); do
        _port=$(sed -n 's/^faro-gpud: listening on 127\.0\.0\.1:\([0-9]*\) .*/\1/p' "$_dir/out")
        [ -n "$_port" ] && break
        kill -0 "$srv" 2>/dev/null || break
        sleep 0.1
    done
    if [ -z "$_port" ]; then
        echo "ERROR: faro-gpud did not say where it listens:" >&2
        cat "$_dir/out" "$_dir/err" >&2
        exit 99
    fi
    addr=127.0.0.1:$_port
}

gpud_stop() {
    [ -n "$srv" ] && kill "$srv" 2>/dev/null && wait "$srv" 2>/dev/null
    srv=
}
