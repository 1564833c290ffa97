/*
 * verbs transport: credit-based flow control, per connection. Hardware-
 * independent: tests/unit/test_verbs_credit.c runs it through randomized
 * traffic without a device.
 *
 * The receiver of a connection posts B receive buffers for the sender's
 * messages (its own buffers, or its share of a shared receive queue): B - 1
 * data buffers and 1 control buffer. The sender holds one credit per buffer:
 *
 *   send   data credits: every message but a credit message takes one
 *          (owner messages, hello, goodbye); without one it waits in the
 *          transport's queue, so it never finds the receiver without a buffer
 *   ctl    control credits (1): an explicit credit message takes it
 *
 * The receiver counts the buffers it processed and posted again: `ret` (data)
 * and `ctl_ret` (control). It returns them in the header of every message it
 * sends the other way (piggy-backed: ping-pong traffic never needs more), and
 * by an explicit credit message (a header alone) when `ret` reached the
 * threshold T and no message is about to go that could carry it. Control
 * returns never cause a message of their own (two credit messages would
 * answer each other forever); they ride on the next message.
 *
 * No deadlock, when T > D/2 (D = B - 1 data buffers; T = D/2 + 1 here): a
 * side that needs to send an explicit credit message has its control credit.
 * Its first one, because it starts with it. Before its next one (after the
 * previous at time t), `ret` went from 0 to T again, so T messages of the
 * peer were processed after t. At time t the peer could have at most D - T
 * messages in flight or sent from credits it held (every credit returned at t
 * was still with the receiver), and D - T < T: so at least one of those T
 * messages was sent after the peer processed the credit message of time t,
 * and that message carried the control return (every message carries every
 * pending return). Data credits never wait on the peer's software either way:
 * a receiver posts a buffer again as soon as its handler returned.
 *
 * A credit is counted as returnable only once its buffer is posted again
 * (verbs_credit_consumed after the repost), so a returned credit always
 * stands for a posted buffer: the sender never overruns the receiver.
 */
#ifndef FARO_VERBS_CREDIT_H
#define FARO_VERBS_CREDIT_H

#include <stdint.h>

#pragma GCC visibility push(hidden)

#define VERBS_CREDIT_MAX 65535u   /* data credits fit the header's u16 */
#define VERBS_CTL_MAX 255u

struct verbs_credit {
    uint32_t send, ctl;           /* what this side may still send */
    uint32_t send_max, ctl_max;   /* what the peer granted at connection */
    uint32_t ret, ctl_ret;        /* buffers processed and posted again, not yet returned */
    uint32_t thr;                 /* explicit credit message when ret reaches this */
};

/* peer_data/peer_ctl: what the peer granted us (its posted buffers for our
 * messages); own_data: the data buffers we posted for the peer's messages.
 * Returns -1 when a count is out of range (0, or over the header's field). */
int verbs_credit_init(struct verbs_credit *c, uint32_t peer_data, uint32_t peer_ctl,
                      uint32_t own_data);

/* A data credit for a message; 0 when none is left (the message waits). */
static inline int verbs_credit_take(struct verbs_credit *c)
{
    if (!c->send)
        return 0;
    c->send--;
    return 1;
}

/* A control credit for an explicit credit message; 0 when none is left. */
static inline int verbs_credit_take_ctl(struct verbs_credit *c)
{
    if (!c->ctl)
        return 0;
    c->ctl--;
    return 1;
}

/* The returns for the header of a message about to go (every message). */
static inline void verbs_credit_piggyback(struct verbs_credit *c, uint16_t *data, uint8_t *ctl)
{
    *data = (uint16_t)c->ret;
    *ctl = (uint8_t)c->ctl_ret;
    c->ret = c->ctl_ret = 0;
}

/* A posted message failed before it left: its credit and the returns it
 * carried go back to the counters. */
void verbs_credit_unsend(struct verbs_credit *c, int ctl_msg, uint16_t data, uint8_t ctl);

/* The peer returned credits (from a header). -1 when that would grant more
 * than it granted at connection: the peer broke the protocol. */
int verbs_credit_returned(struct verbs_credit *c, uint16_t data, uint8_t ctl);

/* A message of the peer was processed and its buffer posted again. */
static inline void verbs_credit_consumed(struct verbs_credit *c, int ctl_msg)
{
    if (ctl_msg)
        c->ctl_ret++;
    else
        c->ret++;
}

/* Should an explicit credit message go now? piggyback_soon: a message to the
 * peer is about to go (queued with a data credit available). */
static inline int verbs_credit_want_explicit(const struct verbs_credit *c, int piggyback_soon)
{
    return c->ret >= c->thr && c->ctl > 0 && !piggyback_soon;
}

#pragma GCC visibility pop

#endif
