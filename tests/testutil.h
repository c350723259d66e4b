/* Helpers shared by the Check test programs. */
#ifndef GEMST_TESTUTIL_H
#define GEMST_TESTUTIL_H

#include <check.h>
#include <stdlib.h>

/* Files shipped with the sources (GEMST_SRCDIR is set by Makefile.am). */
#define TEST_DATA(name) GEMST_SRCDIR "/tests/data/" name
#define TSPLIB_FILE(name) GEMST_SRCDIR "/tsplib/" name

/* Runs a suite; the exit status automake expects (0 pass, 1 fail). */
static inline int run_suite(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
