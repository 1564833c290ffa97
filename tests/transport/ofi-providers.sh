#!/bin/sh
# ofi-providers.sh: the transport conformance suite over the ofi transport's
# other providers. `tests/transport/conformance` runs ofi with the provider
# the transport picks by itself (tcp;ofi_rxm here); this runs the same cases
# once per provider named in OFI_PROVIDERS (default: shm, sockets and
# udp;ofi_rxd), each through FARO_OFI_PROVIDER. A provider that is not usable
# here is skipped with faro_info's reason; the script is skipped (77) when
# none is, or when ofi is not built.
# Run from the top build directory (automake does).
[ -x tests/transport/conformance ] && [ -x ./faro_info ] || { echo "ERROR: build first" >&2; exit 99; }
providers=${OFI_PROVIDERS:-"shm sockets udp;ofi_rxd"}
ran=0 failed=0
for p in $providers; do
    line=$(FARO_OFI_PROVIDER="$p" ./faro_info --transports 2>/dev/null | grep "^  ofi ")
    case $line in
    *" usable"*) ;;
    "") echo "ofi-providers.sh: the ofi transport is not built: skipped"; exit 77 ;;
    *) echo "# $p: skipped:${line#*:}"; continue ;;
    esac
    echo "# provider $p"
    # rxd retransmits over udp on timers: on a loaded machine its ordered
    # stream takes several times tcp's, so its waits get 3x the time.
    case $p in *ofi_rxd*) slow=3 ;; *) slow=1 ;; esac
    log=$(mktemp)
    rc=0
    CONF_SLOW=$slow FARO_OFI_PROVIDER="$p" tests/transport/conformance ofi > "$log" 2>&1 || rc=$?
    cat "$log"
    bad=$(sed -n 's/^not ok [0-9]* - ofi \([a-z0-9-]*\).*/\1/p' "$log")
    [ $rc = 0 ] || [ -n "$bad" ] || bad=exit-$rc
    rm -f "$log"
    # rxd (reliable datagrams over udp, a utility provider) fails now and
    # then on a loaded machine with nothing failing in Faro's code; its
    # failed cases are run once more and must pass then. Every other
    # provider's failure stands. Case order over rxd (libfabric 1.17), 237
    # runs in two loops at once at a load of 4-25 on two cores
    # (docs/transports.md, "udp;ofi_rxd under load"): a run takes 0.7 s on
    # a quiet machine and took up to 42 s and passed; 25 failed with both
    # ranks still receiving when a wait ran out (10 s, or 30 s under
    # CONF_SLOW=3), always in spells when the other loop failed too (the
    # machine, not a race in one job); once, in the same minute, a segfault inside
    # fi_recvmsg and a fi_cq_read that never returned. The receiving UDP
    # sockets dropped 45,000-80,000 datagrams a run: rxd keeps 128 per peer
    # in flight, discards what arrives out of order and resends after a
    # timeout doubling from 1 ms to 4 s. Starved on purpose (ranks at nice
    # 10 beside four busy loops for 40 s) order failed 2 of 3 times over
    # rxd and passed 3 of 3 times over tcp;ofi_rxm.
    case $p in *ofi_rxd*)
        case $bad in exit-*) failed=$((failed + 1)) ;; esac
        for c in $bad; do
            case $c in exit-*) continue ;; esac
            echo "# $p: case $c failed; running it once more (rxd)"
            CONF_SLOW=$slow FARO_OFI_PROVIDER="$p" tests/transport/conformance ofi "$c" ||
                { failed=$((failed + 1)); break; }
        done
        bad= ;;
    esac
    [ -z "$bad" ] || failed=$((failed + 1))
    ran=$((ran + 1))
done
[ $ran -gt 0 ] || exit 77
[ $failed -eq 0 ]
