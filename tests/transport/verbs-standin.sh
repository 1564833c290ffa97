#!/bin/sh
# verbs-standin.sh: the transport conformance suite over the verbs transport
# linked with the verbs stand-in (tests/transport/standin/standin.h), a test
# driver that replaces libibverbs and librdmacm where there is no RDMA device.
# It checks that the transport keeps the verbs rules the stand-in enforces
# and passes every case through them; it is not a hardware result. On a
# machine with a device, `tests/transport/conformance verbs` runs the same
# cases over the device (docs/transports.md).
# Run from the top build directory (automake does).
prog=tests/transport/conformance-verbs-standin
[ -x $prog ] || { echo "ERROR: build first ($prog)" >&2; exit 99; }
echo "# verbs over the stand-in (a test driver, not a device)"
exec $prog verbs "$@"
