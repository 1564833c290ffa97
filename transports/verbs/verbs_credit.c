/*
 * verbs transport: credit accounting (verbs_credit.h has the design and the
 * argument that it cannot deadlock).
 */
#include "config.h"

#include "verbs/verbs_credit.h"

int verbs_credit_init(struct verbs_credit *c, uint32_t peer_data, uint32_t peer_ctl,
                      uint32_t own_data)
{
    if (!peer_data || peer_data > VERBS_CREDIT_MAX || !peer_ctl || peer_ctl > VERBS_CTL_MAX ||
        !own_data || own_data > VERBS_CREDIT_MAX)
        return -1;
    *c = (struct verbs_credit){ .send = peer_data, .ctl = peer_ctl, .send_max = peer_data,
                                .ctl_max = peer_ctl, .thr = own_data / 2 + 1 };
    return 0;
}

void verbs_credit_unsend(struct verbs_credit *c, int ctl_msg, uint16_t data, uint8_t ctl)
{
    if (ctl_msg)
        c->ctl++;
    else
        c->send++;
    c->ret += data;
    c->ctl_ret += ctl;
}

int verbs_credit_returned(struct verbs_credit *c, uint16_t data, uint8_t ctl)
{
    if (c->send + data > c->send_max || c->ctl + ctl > c->ctl_max)
        return -1;
    c->send += data;
    c->ctl += ctl;
    return 0;
}
