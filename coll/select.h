/*
 * The algorithm selection's set-up and listing (select.c), for MPI_Init's
 * first collective, faro_info --coll and the unit test. The per-call side,
 * faro_coll_select, and the algorithm table are in coll.h.
 */
#ifndef FARO_COLL_SELECT_H
#define FARO_COLL_SELECT_H

#include <stddef.h>
#include <stdio.h>

#include "coll.h"

/* Build the selection from the loaded tunables: the forced algorithms and
 * FARO_COLL_TUNING_FILE's rules ahead of the built-in ones. Returns 0, or -1
 * with a message in err naming the file, the line, what was wrong and what is
 * allowed. Called once on the first collective; again only after
 * faro_coll_select_reset (tests). */
int faro_coll_select_init(char *err, size_t errlen);
void faro_coll_select_reset(void);

/* Parse a tuning file's text from f (named name in messages) without
 * using it: the number of rules, or -1 with the message of
 * faro_coll_select_init in err (tests, the fuzzer in tests/fuzz). */
int faro_coll_tuning_parse(FILE *f, const char *name, char *err, size_t errlen);

/* The collective's name as a tuning file writes it ("allreduce"). */
const char *faro_coll_kind_name(enum faro_coll_kind kind);

/* Every algorithm with its summary and what it needs (comment lines). */
void faro_coll_print_algorithms(FILE *out);
/* The rules in effect, in the tuning-file format: reading the output back as
 * FARO_COLL_TUNING_FILE gives the same table. Needs faro_coll_select_init. */
void faro_coll_print_rules(FILE *out);

#endif
