/*
 * The headers' version macros and the library's gridemst_version() are
 * configure's version (PACKAGE_VERSION, from AC_INIT, in the environment
 * make check gives the tests).  tests/version.sh checks the tools and the
 * man pages against the same.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gridemst.h>

static int same(const char *what, const char *got, const char *wanted)
{
    if (strcmp(got, wanted) == 0)
        return 1;
    fprintf(stderr, "FAIL: %s is '%s', configure's version '%s'\n", what, got, wanted);
    return 0;
}

int main(void)
{
    const char *wanted = getenv("PACKAGE_VERSION");
    if (!wanted || !*wanted) {
        fprintf(stderr, "ERROR: PACKAGE_VERSION is not set\n");
        return 99;
    }
    char macros[64];
    snprintf(macros, sizeof macros, "%d.%d.%d", GRIDEMST_VERSION_MAJOR, GRIDEMST_VERSION_MINOR,
             GRIDEMST_VERSION_PATCH);
    int ok = same("GRIDEMST_VERSION_MAJOR.MINOR.PATCH", macros, wanted);
    ok &= same("GRIDEMST_VERSION_STRING", GRIDEMST_VERSION_STRING, wanted);
    ok &= same("gridemst_version()", gridemst_version(), wanted);
    return ok ? 0 : 1;
}
