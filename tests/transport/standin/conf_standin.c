/*
 * The conformance suite over the verbs stand-in (tests/transport/verbs-
 * standin.sh): the stand-in's record of broken verbs rules is the driver's
 * verdict on every case (conf.h).
 */
#include "config.h"

#include "conf.h"
#include "verbs_standin.h"

const char *conf_driver_verdict(void)
{
    return verbs_standin_first_error();
}
