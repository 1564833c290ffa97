/*
 * The verbs stand-in (standin.h has what it is and the rules it enforces):
 * what a test reads and sets. Linked into a test program, it replaces
 * libibverbs and librdmacm for the verbs transport of that program only.
 */
#ifndef FARO_VERBS_STANDIN_H
#define FARO_VERBS_STANDIN_H

/* Rules broken so far in this process, and the first one's description
 * (NULL when none). */
int verbs_standin_errors(void);
const char *verbs_standin_first_error(void);
void verbs_standin_clear(void);

/* 0: the machine has no device (ibv_get_device_list fails with ENOSYS, as
 * where the kernel has no RDMA); 1: standin0 (the default). */
void verbs_standin_devices(int n);

/* 1 when registrations are checked page by page (page frame numbers are
 * readable: root), 0 when not. */
int verbs_standin_pfn_checks(void);

/* Counters: sends (inline among them), RDMA writes and reads posted,
 * ibv_reg_mr calls, work requests lost with a destroyed queue pair. */
struct verbs_standin_stats {
    long sends, inline_sends, writes, reads, mr_regs, mrs_live, lost_wrs;
};
void verbs_standin_stats(struct verbs_standin_stats *st);

#endif
