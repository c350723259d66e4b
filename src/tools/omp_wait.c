/* Passive OpenMP waiting by default (see omp_wait.h). */
#include "tools/omp_wait.h"

#include <stdlib.h>
#include <unistd.h>

void gemst_default_passive_wait(char **argv)
{
    char self[4096];
    if (getenv("OMP_WAIT_POLICY") || setenv("OMP_WAIT_POLICY", "passive", 1) != 0)
        return;
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0 || (size_t)len >= sizeof self - 1)
        return;
    self[len] = '\0';
    execv(self, argv); /* returns only when it fails */
}
