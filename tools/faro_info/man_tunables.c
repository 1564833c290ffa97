/*
 * faro-tunables(7) in roff, written from the tunables table. Shared by
 * `faro_info --man` and the build-time generator (gen_man.c), so the page and
 * the program can never disagree about a tunable.
 */
#include "man_tunables.h"
#include "base/tunables.h"

#include <stdio.h>
#include <string.h>

/* Write text safe for roff: backslashes escaped, and a leading . or ' (which
 * roff would read as a request) neutralised with \&. */
static void roff_text(FILE *out, const char *s)
{
    if (*s == '.' || *s == '\'')
        fputs("\\&", out);
    for (; *s; s++) {
        if (*s == '\\')
            fputs("\\e", out);
        else if (*s == '-')
            fputs("\\-", out); /* a real minus: copyable options and names */
        else
            fputc(*s, out);
    }
}

static const char *type_word(enum faro_tun_type t)
{
    switch (t) {
    case FARO_TUN_TYPE_INT: return "integer";
    case FARO_TUN_TYPE_SIZE: return "size";
    case FARO_TUN_TYPE_BOOL: return "boolean";
    case FARO_TUN_TYPE_ENUM: return "one of";
    case FARO_TUN_TYPE_STRING: return "string";
    }
    return "?";
}

/* "spin|yield|auto" -> "spin, yield, auto". */
static void choices_list(FILE *out, const char *choices)
{
    for (const char *c = choices; *c; c++) {
        if (*c == '|')
            fputs(", ", out);
        else if (*c == '-')
            fputs("\\-", out);
        else
            fputc(*c, out);
    }
}

/* The allowed values as one phrase, e.g. "size, 0 to 1073741824". */
void faro_tun_describe_range(FILE *out, const struct faro_tunable_desc *d, int roff)
{
    fputs(type_word(d->type), out);
    switch (d->type) {
    case FARO_TUN_TYPE_INT:
    case FARO_TUN_TYPE_SIZE:
        fprintf(out, ", %lld to %lld", d->min, d->max);
        if (d->type == FARO_TUN_TYPE_SIZE)
            fputs(" bytes", out);
        break;
    case FARO_TUN_TYPE_ENUM:
        fputc(' ', out);
        if (roff)
            choices_list(out, d->choices);
        else
            for (const char *c = d->choices; *c; c++) {
                if (*c == '|')
                    fputs(", ", out);
                else
                    fputc(*c, out);
            }
        break;
    case FARO_TUN_TYPE_STRING:
        if (d->choices[0]) {
            fputs(": ", out);
            if (roff)
                roff_text(out, d->choices);
            else
                fputs(d->choices, out);
        }
        break;
    case FARO_TUN_TYPE_BOOL:
        fputs(" (1, yes, on, true or 0, no, off, false)", out);
        break;
    }
}

void faro_tunables_man(FILE *out, const char *version)
{
    fprintf(out, ".\\\" Generated from the *_tunables.def files listed in base/tunables_all.def; edit those, not this page.\n");
    fprintf(out, ".TH FARO\\-TUNABLES 7 \"\" \"Faro %s\" \"Faro Manual\"\n", version);
    fputs(".SH NAME\n"
          "faro\\-tunables \\- environment variables that tune Faro\n"
          ".SH SYNOPSIS\n"
          ".B FARO_\\fINAME\\fB=\\fIvalue\\fR\n"
          ".B mpiexec\n"
          "\\&... \\fIprogram\\fR\n"
          ".SH DESCRIPTION\n"
          "Every setting of Faro is an environment variable named\n"
          ".BR FARO_ \\fIAREA\\fR_\\fINAME\\fR.\n"
          "They are read once, by\n"
          ".B MPI_Init\n"
          "and by\n"
          ".BR faro_info (1),\n"
          "and are checked against the table below.\n"
          ".PP\n"
          "A value that does not fit stops the program with a message that names the variable,\n"
          "the value and what is allowed, for example\n"
          ".RS\n"
          ".nf\n"
          "FARO_EAGER_LIMIT=12x is invalid: expected a size in bytes from 0 to 1073741824\n"
          "(suffixes k, m, g; e.g. 64k)\n"
          ".fi\n"
          ".RE\n"
          ".PP\n"
          "A variable that starts with\n"
          ".B FARO_\n"
          "but is not in the table draws one warning that suggests the closest known name.\n"
          "Setting a number to the empty string is the same as leaving it unset.\n"
          ".SS Types\n"
          ".TP\n"
          ".B integer\n"
          "A decimal number within the range shown.\n"
          ".TP\n"
          ".B size\n"
          "A number of bytes, optionally followed by\n"
          ".BR k ,\n"
          ".B m\n"
          "or\n"
          ".B g\n"
          "(either case) for powers of 1024:\n"
          ".B 64k\n"
          "is 65536.\n"
          ".TP\n"
          ".B boolean\n"
          ".BR 1 \", \" yes \", \" on \", \" true\n"
          "or\n"
          ".BR 0 \", \" no \", \" off \", \" false ,\n"
          "in any case.\n"
          ".TP\n"
          ".B one of\n"
          "One of the words listed, in any case.\n"
          ".TP\n"
          ".B string\n"
          "Free text, in the format described.\n"
          ".PP\n"
          "A default in parentheses, such as\n"
          ".IR \"(per transport)\" ,\n"
          "means that the variable has no value of its own until it is set, and the\n"
          "part named decides.\n"
          ".SH TUNABLES\n",
          out);
    for (int i = 0; i < FARO_TUN_COUNT; i++) {
        const struct faro_tunable_desc *d = &faro_tunable_table[i];
        fputs(".TP\n.B ", out);
        roff_text(out, d->name);
        fputs("\n", out);
        roff_text(out, d->summary);
        fputs(".\n.br\n\\fIType:\\fR ", out);
        faro_tun_describe_range(out, d, 1);
        fputs(".\n\\fIDefault:\\fR ", out);
        if (d->def[0])
            roff_text(out, d->def);
        else
            fputs("(empty)", out);
        fputs(".\n.IP\n", out);
        roff_text(out, d->description);
        fputs("\n", out);
    }
    fputs(".SH EXAMPLES\n"
          "Force TCP between every pair of ranks and send messages up to 16 KiB eagerly:\n"
          ".PP\n"
          ".RS\n"
          ".nf\n"
          "FARO_TRANSPORTS=tcp FARO_EAGER_LIMIT=16k mpiexec \\-n 4 ./app\n"
          ".fi\n"
          ".RE\n"
          ".PP\n"
          "Show the value of every tunable as this shell would set it:\n"
          ".PP\n"
          ".RS\n"
          ".nf\n"
          "faro_info \\-\\-tunables\n"
          ".fi\n"
          ".RE\n"
          ".SH SEE ALSO\n"
          ".BR faro (7),\n"
          ".BR faro_info (1),\n"
          ".BR mpiexec (1),\n"
          ".BR mpicc (1),\n"
          ".BR faro\\-shm (7),\n"
          ".BR faro\\-tcp (7)\n",
          out);
}
