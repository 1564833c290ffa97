/*
 * ofi transport: which libfabric provider carries the traffic, and why the
 * others do not.
 *
 * Faro's requirements are the hints of one fi_getinfo call (ofi_hints). When
 * a provider is missing from its answer, the same call is repeated for that
 * provider with the requirements added one at a time: the first one that
 * empties the answer is the reason given ("sockets: no FI_RM_ENABLED"). A
 * provider libfabric knows but that found nothing to drive here ("psm2") and
 * well-known ones this libfabric lacks ("verbs", "efa", "cxi", "psm3") are
 * named too, so faro_info shows the whole picture.
 *
 * The choice: FARO_OFI_PROVIDER (and FARO_OFI_DOMAIN) when set; otherwise
 * the first provider in libfabric's order (hardware providers come first)
 * that qualifies, skipping providers that reach only this node (shm) when the
 * job spans several nodes. Among a provider's domains, when FARO_OFI_DOMAIN
 * is unset: for providers whose domains are network interfaces (tcp,
 * sockets, udp: one domain per interface) the interface the tcp transport
 * would take (base/netif.h: FARO_TCP_IF, else loopback on one node, else the
 * interface the launcher's own connection went out of, never loopback,
 * docker* or virbr* across hosts), so that FARO_TCP_IF means one thing for
 * both and a decoy interface that reaches no other host is not taken;
 * otherwise (device domains: verbs, efa) a one-node job takes loopback when
 * there is one, a job on several nodes avoids it.
 */
#include "config.h"

#include "ofi/ofi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/netif.h"
#include "base/tunables.h"

/* The modes Faro's operations satisfy: every context starts with fi_context2. */
#define OFI_MODES (FI_CONTEXT | FI_CONTEXT2)
#define OFI_MR_MODES (FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | \
                      FI_MR_ENDPOINT)

static void need_rdm(struct fi_info *h) { h->ep_attr->type = FI_EP_RDM; }

static void need_caps(struct fi_info *h)
{
    h->caps |= FI_MSG | FI_RMA | FI_SEND | FI_RECV | FI_READ | FI_WRITE | FI_REMOTE_READ |
               FI_REMOTE_WRITE;
}

static void need_order(struct fi_info *h)
{
    h->tx_attr->msg_order = FI_ORDER_SAS;
    h->rx_attr->msg_order = FI_ORDER_SAS;
}

static void need_rm(struct fi_info *h) { h->domain_attr->resource_mgmt = FI_RM_ENABLED; }

static void need_modes(struct fi_info *h)
{
    h->mode = OFI_MODES;
    h->domain_attr->mr_mode = OFI_MR_MODES;
    h->domain_attr->threading = FI_THREAD_DOMAIN;
}

static const struct {
    const char *lacks;
    void (*apply)(struct fi_info *h);
} ofi_needs[] = {
    { "no reliable-datagram endpoint (FI_EP_RDM)", need_rdm },
    { "no messages with RMA read and write (FI_MSG, FI_RMA)", need_caps },
    { "no send-after-send ordering (FI_ORDER_SAS)", need_order },
    { "no protection of receive buffers from overrun (FI_RM_ENABLED)", need_rm },
    { "needs a memory-registration mode or operation mode Faro does not handle "
      "(it handles FI_MR_LOCAL, VIRT_ADDR, ALLOCATED, PROV_KEY, ENDPOINT and FI_CONTEXT(2))",
      need_modes },
};
#define OFI_NNEEDS (sizeof ofi_needs / sizeof ofi_needs[0])

/* Well-known providers, named when this libfabric does not have them. */
static const char *const ofi_known[] = { "verbs", "efa", "cxi", "psm3", "psm2", "opx",
                                         "usnic", "tcp", "sockets", "shm", "udp" };

/* Hints with the first `upto` requirements, for provider `prov` (NULL: any)
 * and domain `dom` (NULL: any). */
static struct fi_info *ofi_hints(size_t upto, const char *prov, const char *dom)
{
    struct fi_info *h = fi_allocinfo();
    if (!h)
        return NULL;
    for (size_t i = 0; i < upto && i < OFI_NNEEDS; i++)
        ofi_needs[i].apply(h);
    if (prov && *prov)
        h->fabric_attr->prov_name = strdup(prov);
    if (dom && *dom)
        h->domain_attr->name = strdup(dom);
    return h;
}

static struct fi_info *ofi_getinfo(size_t upto, const char *prov, const char *dom, uint64_t flags)
{
    struct fi_info *h = ofi_hints(upto, prov, dom), *out = NULL;
    if (!h)
        return NULL;
    if (fi_getinfo(OFI_API, NULL, NULL, flags, upto || prov || dom ? h : NULL, &out) != 0)
        out = NULL;
    fi_freeinfo(h);
    return out;
}

/* Why `prov` (with domain dom) is not in the answer to the full hints, in
 * buf; "qualifies" (or "qualifies as <layered name>") when it is. */
static const char *ofi_lacks(const char *prov, const char *dom, char *buf, size_t len)
{
    struct fi_info *i = ofi_getinfo(0, prov, dom, 0);
    if (!i)
        return dom && *dom ? "no such provider and domain here"
                           : "no such provider here (not in this libfabric, or it found no "
                             "device)";
    fi_freeinfo(i);
    for (size_t k = 1; k <= OFI_NNEEDS; k++) {
        if (!(i = ofi_getinfo(k, prov, dom, 0)))
            return ofi_needs[k - 1].lacks;
        if (k < OFI_NNEEDS)
            fi_freeinfo(i);
    }
    if (strcmp(i->fabric_attr->prov_name, prov))
        snprintf(buf, len, "qualifies as %s", i->fabric_attr->prov_name);
    else
        snprintf(buf, len, "qualifies");
    fi_freeinfo(i);
    return buf;
}

/* A provider that reaches only processes on this node: it does not offer
 * FI_REMOTE_COMM. */
static int ofi_local_only(const struct fi_info *i)
{
    struct fi_info *h = ofi_hints(OFI_NNEEDS, i->fabric_attr->prov_name, i->domain_attr->name);
    struct fi_info *out = NULL;
    if (!h)
        return 0;
    h->caps |= FI_REMOTE_COMM;
    if (fi_getinfo(OFI_API, NULL, NULL, 0, h, &out) != 0)
        out = NULL;
    fi_freeinfo(h);
    int local = out == NULL;
    fi_freeinfo(out);
    return local;
}

static int ofi_listed(char (*seen)[OFI_PROV_LEN], int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(seen[i], name))
            return 1;
    return 0;
}

/* Append "a: b" and the separator. */
static void ofi_say(char *buf, size_t len, const char *sep, const char *a, const char *b)
{
    size_t used = strlen(buf);
    if (used < len)
        snprintf(buf + used, len - used, "%s: %s%s", a, b, sep);
}

/* Every provider libfabric answers for, with its verdict; then the known ones
 * it does not have. Entries end with sep. */
static void ofi_survey(const struct fi_info *good, char *out, size_t len, const char *sep)
{
    char seen[64][OFI_PROV_LEN], buf[64];
    int n = 0;
    struct fi_info *all = ofi_getinfo(0, NULL, NULL, 0);

    for (const struct fi_info *i = all; i && n < 64; i = i->next) {
        const char *name = i->fabric_attr->prov_name;
        if (ofi_listed(seen, n, name))
            continue;
        snprintf(seen[n++], OFI_PROV_LEN, "%s", name);
        const struct fi_info *g = good;
        while (g && strcmp(g->fabric_attr->prov_name, name))
            g = g->next;
        if (g)
            ofi_say(out, len, sep, name,
                    ofi_local_only(g) ? "qualifies (reaches only this node)" : "qualifies");
        else
            ofi_say(out, len, sep, name, ofi_lacks(name, NULL, buf, sizeof buf));
    }
    fi_freeinfo(all);
    struct fi_info *reg = ofi_getinfo(0, NULL, NULL, FI_PROV_ATTR_ONLY);
    for (const struct fi_info *i = reg; i; i = i->next) {
        const char *name = i->fabric_attr->prov_name;
        if (!strncmp(name, "ofi_", 4) || ofi_listed(seen, n, name) || n >= 64)
            continue; /* utility and hook providers layer over the others */
        snprintf(seen[n++], OFI_PROV_LEN, "%s", name);
        ofi_say(out, len, sep, name, "found no device or endpoint here");
    }
    fi_freeinfo(reg);
    for (size_t k = 0; k < sizeof ofi_known / sizeof ofi_known[0]; k++) {
        int found = 0;
        for (int i = 0; i < n && !found; i++)
            found = !strncmp(seen[i], ofi_known[k], strlen(ofi_known[k]));
        if (!found)
            ofi_say(out, len, sep, ofi_known[k], "not in this libfabric");
    }
}

/* Of the entries of provider `prov` in list, the one to use: domain `dom`
 * when it is set (providers do not all filter by it); else the one of the
 * most preferred interface of ifs[0..nifs) (*by_if is set); else loopback
 * for a one-node job and anything but loopback otherwise; else the first. */
static struct fi_info *ofi_pick_domain(struct fi_info *list, const char *prov, int one_node,
                                       const char *dom, const struct faro_netif *ifs, int nifs,
                                       int *by_if)
{
    struct fi_info *first = NULL, *pick = NULL, *ifpick = NULL;
    int best = nifs; /* ifs index of ifpick */
    for (struct fi_info *i = list; i; i = i->next) {
        const char *name = i->domain_attr->name ? i->domain_attr->name : "";
        if (strcmp(i->fabric_attr->prov_name, prov) || (*dom && strcmp(name, dom)))
            continue;
        if (!first)
            first = i;
        for (int k = 0; !*dom && k < best; k++)
            if (!strcmp(name, ifs[k].name)) {
                ifpick = i;
                best = k;
            }
        if (!pick && !*dom && (one_node ? !strcmp(name, "lo") : strcmp(name, "lo")))
            pick = i;
    }
    *by_if = ifpick != NULL;
    return ifpick ? ifpick : pick ? pick : first;
}

int ofi_choose(faro_tp_t *tp, char *why, size_t whylen, char *note, size_t notelen)
{
    const faro_tp_env_t *env = tp->env;
    const char *prov = faro_tun_str(FARO_TUN_OFI_PROVIDER);
    const char *dom = faro_tun_str(FARO_TUN_OFI_DOMAIN);
    int one_node = 1;
    for (int r = 0; r < env->size; r++)
        one_node &= env->node_of[r] == env->node_of[env->rank];

    /* the interfaces tcp would take, best first (domains of IP providers are interfaces) */
    struct faro_netif ifs[FARO_NETIF_MAX];
    char ifreason[256] = "", ifwhy[512] = "";
    int nifs = *dom ? 0
                    : faro_netif_choose(faro_tun_str(FARO_TUN_TCP_IF), !one_node,
                                        getenv("FARO_INTERNAL_CONTROL_IF"), ifs, FARO_NETIF_MAX,
                                        ifreason, sizeof ifreason, ifwhy, sizeof ifwhy);
    if (nifs < 0)
        nifs = 0;

    struct fi_info *list = ofi_getinfo(OFI_NNEEDS, prov, dom, 0), *pick = NULL;
    char lacks[64];
    const char *reason = "";
    int by_if = 0;
    for (struct fi_info *i = list; i && !pick; i = i->next) {
        if (!*prov && !one_node && ofi_local_only(i))
            continue;
        pick = ofi_pick_domain(list, i->fabric_attr->prov_name, one_node, dom, ifs, nifs, &by_if);
        reason = *prov ? "named by FARO_OFI_PROVIDER"
                       : "the first that qualifies, in libfabric's order (FARO_OFI_PROVIDER "
                         "is unset)";
    }
    if (pick && by_if)
        faro_info(1, "ofi: domain %s: the interface tcp would take: %s",
                  pick->domain_attr->name, ifreason);
    if (note) { /* lines for faro_info; one line when it goes into the reason */
        note[0] = 0;
        if (pick) {
            snprintf(note, notelen, "provider %s, domain %s: %s%s%s\n",
                     pick->fabric_attr->prov_name, pick->domain_attr->name, reason,
                     by_if ? "; domain: the interface tcp would take, " : "",
                     by_if ? ifreason : "");
            struct fi_info *good = *prov || *dom ? ofi_getinfo(OFI_NNEEDS, NULL, NULL, 0) : list;
            ofi_survey(good, note, notelen, "\n");
            if (good != list)
                fi_freeinfo(good);
        } else {
            ofi_survey(NULL, note, notelen, "; ");
            size_t n = strlen(note);
            if (n >= 2)
                note[n - 2] = 0;
        }
    }
    if (!pick) {
        char named[160] = "";
        if (*prov || *dom)
            snprintf(named, sizeof named, "%s%s%s%s: ", *prov ? "FARO_OFI_PROVIDER=" : "", prov,
                     *dom ? " FARO_OFI_DOMAIN=" : "", dom);
        int dom_found = 0;
        for (struct fi_info *i = list; i; i = i->next)
            dom_found |= i->domain_attr->name && !strcmp(i->domain_attr->name, dom);
        snprintf(why, whylen, "%s%s%s%s", named,
                 *named ? (!list ? ofi_lacks(prov, dom, lacks, sizeof lacks)
                           : *dom && !dom_found ? "no such domain for it here"
                                                : "reaches only this node, and the job spans "
                                                  "several")
                        : "no libfabric provider here qualifies (a reliable-datagram endpoint "
                          "with messages, RMA, send-after-send order and resource management"
                          " that reaches other nodes when the job spans several)",
                 note && *note ? "; found: " : "", note ? note : "");
        fi_freeinfo(list);
        return FARO_TP_UNAVAILABLE;
    }
    /* Progress by this transport's polls (FI_PROGRESS_MANUAL) where the
     * provider offers it: no provider thread then races the owner's thread
     * (sockets lost a send posted from inside a handler with its own
     * progress thread: conformance case "pingpong"). */
    struct fi_info *h = ofi_hints(OFI_NNEEDS, pick->fabric_attr->prov_name,
                                  pick->domain_attr->name), *manual = NULL;
    if (h) {
        h->domain_attr->data_progress = FI_PROGRESS_MANUAL;
        if (fi_getinfo(OFI_API, NULL, NULL, 0, h, &manual) != 0)
            manual = NULL;
        for (struct fi_info *m = manual; m; m = m->next)
            if (m->addr_format == pick->addr_format && /* IPv4 stays IPv4 */
                m->domain_attr->name && pick->domain_attr->name &&
                !strcmp(m->domain_attr->name, pick->domain_attr->name)) {
                pick = m;
                break;
            }
        fi_freeinfo(h);
    }
    tp->info = fi_dupinfo(pick);
    fi_freeinfo(manual);
    tp->local_only = tp->info ? ofi_local_only(tp->info) : 0;
    fi_freeinfo(list);
    if (!tp->info) {
        snprintf(why, whylen, "out of memory");
        return FARO_TP_ERR;
    }
    return FARO_TP_OK;
}
