# netns.sh: test hosts made of Linux namespaces, for the multi-host tests and
# the start-up benchmark (sourced; needs root, iproute2 and unshare).
#
#   netns_check              prints why namespaces cannot be made here (and
#                            fails), or nothing
#   netns_up PREFIX N        makes the hosts PREFIX-h1 .. PREFIX-hN and
#                            PREFIX-head (where mpiexec runs): each a network
#                            namespace with lo, an eth0 on one switch (a
#                            bridge in the namespace PREFIX-sw) and a decoy
#                            docker0 that reaches nothing, plus
#                            /etc/netns/NAME/hosts naming them all (what
#                            `ip netns exec` shows as /etc/hosts there)
#   netns_down               removes them, killing what still runs in them
#   netns_in NS CMD...       runs CMD in NS, with NS as its host name
#   netns_pids NS            the processes running in NS
#
# Nothing is configured outside the namespaces except /etc/netns/PREFIX-*,
# so concurrent runs with different prefixes do not meet, and the traffic
# never leaves them. The agent for mpiexec is tests/launcher/netns-agent.
NETNS_NET=10.77.0

netns_check() {
    [ "$(id -u)" = 0 ] || { echo "not root"; return 1; }
    command -v ip >/dev/null 2>&1 || { echo "no ip(8) (iproute2)"; return 1; }
    command -v unshare >/dev/null 2>&1 || { echo "no unshare(1)"; return 1; }
    probe=faro-probe-$$
    if ! out=$(ip netns add "$probe" 2>&1); then
        echo "cannot create a network namespace: $out"
        return 1
    fi
    if ! out=$(ip netns exec "$probe" unshare --uts true 2>&1); then
        ip netns del "$probe" 2>/dev/null
        echo "cannot enter a namespace or make a UTS namespace: $out"
        return 1
    fi
    if ! out=$(ip link add faro-pv$$ type veth peer name faro-pw$$ netns "$probe" 2>&1); then
        ip netns del "$probe" 2>/dev/null
        echo "cannot create veth pairs: $out"
        return 1
    fi
    ip link del faro-pv$$ 2>/dev/null
    ip netns del "$probe"
}

netns_in() {
    ns=$1
    shift
    ip netns exec "$ns" unshare --uts sh -c 'hostname "$0" && exec "$@"' "$ns" "$@"
}

netns_pids() {
    ip netns pids "$1" 2>/dev/null
}

# netns_up PREFIX N
netns_up() {
    NETNS_PREFIX=$1
    n=$2
    NETNS_SW=$NETNS_PREFIX-sw
    NETNS_HEAD=$NETNS_PREFIX-head
    NETNS_HOSTS=
    NETNS_ALL="$NETNS_SW $NETNS_HEAD"
    i=1
    while [ "$i" -le "$n" ]; do
        NETNS_HOSTS="$NETNS_HOSTS $NETNS_PREFIX-h$i"
        i=$((i + 1))
    done
    NETNS_HOSTS=${NETNS_HOSTS# }
    NETNS_ALL="$NETNS_ALL $NETNS_HOSTS"
    for ns in $NETNS_ALL; do
        ip netns add "$ns" || return 1
        ip -n "$ns" link set lo up || return 1
    done
    ip -n "$NETNS_SW" link add br0 type bridge || return 1
    ip -n "$NETNS_SW" link set br0 up || return 1
    hosts="127.0.0.1 localhost
$NETNS_NET.2 $NETNS_HEAD"
    i=1
    for h in $NETNS_HOSTS; do
        hosts="$hosts
$NETNS_NET.$((10 + i)) $h"
        i=$((i + 1))
    done
    i=1
    for ns in $NETNS_HEAD $NETNS_HOSTS; do
        if [ "$ns" = "$NETNS_HEAD" ]; then addr=$NETNS_NET.2; else addr=$NETNS_NET.$((10 + i)); i=$((i + 1)); fi
        port=p$(echo "$ns" | sed 's/.*-//')
        ip link add "$port" netns "$NETNS_SW" type veth peer name eth0 netns "$ns" || return 1
        ip -n "$NETNS_SW" link set "$port" master br0 up || return 1
        ip -n "$ns" addr add "$addr/24" dev eth0 || return 1
        ip -n "$ns" link set eth0 up || return 1
        # A decoy that reaches no other host: the default interface choice skips it.
        if ip -n "$ns" link add docker0 type veth peer name docker0p 2>/dev/null; then
            ip -n "$ns" addr add 172.31.0.1/24 dev docker0
            ip -n "$ns" link set docker0p up
            ip -n "$ns" link set docker0 up
        fi
        mkdir -p "/etc/netns/$ns" && printf '%s\n' "$hosts" >"/etc/netns/$ns/hosts" || return 1
    done
}

netns_down() {
    [ -n "${NETNS_ALL:-}" ] || return 0
    for ns in $NETNS_ALL; do
        pids=$(netns_pids "$ns")
        [ -z "$pids" ] || kill -9 $pids 2>/dev/null
    done
    for ns in $NETNS_ALL; do
        ip netns del "$ns" 2>/dev/null
        rm -rf "/etc/netns/$ns"
    done
    NETNS_ALL=
}
