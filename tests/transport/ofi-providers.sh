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
    # then with nothing failing in Faro's code; its failed cases are run
    # once more and must pass then. Every other provider's failure stands.
    # The stall is libfabric 1.17's rxd (docs/transports.md, "udp;ofi_rxd"):
    # case order stalled 2 times in 146 runs (two loops at once, normal
    # priority, load 12-18, libfabric 1.17.0 built with symbols), both with
    # one stack: Faro posts a receive buffer again (ofi_rx_post), fi_recvmsg
    # matches an unexpected multi-segment message and replays its stored
    # packets (rxd_progress_unexp_msg, prov/rxd/src/rxd_msg.c:90), the
    # receive completes and rxd frees its entry (rxd_complete_rx ->
    # rxd_rx_entry_free), which is already on the pool's free list: the
    # ordered insert into that list never ends, and neither does
    # fi_recvmsg. With Debian's library the same call once segfaulted. In
    # 237 earlier runs at nice 10, 25 more failed only because a wait (10
    # s, or 30 s with CONF_SLOW=3) ran out while both ranks were still
    # receiving: starved of CPU, rxd drops and resends datagrams
    # (45,000-80,000 dropped a run) and crawls.
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
