/*
 * Build-time generator of man/faro-tunables.7. It links only the tunables
 * table and the renderer, so the man page is built without the library.
 */
#include "config.h"
#include "man_tunables.h"

#include <stdio.h>

int main(void)
{
    faro_tunables_man(stdout, PACKAGE_VERSION);
    return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
}
