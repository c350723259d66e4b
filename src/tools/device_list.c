/* The --devices option's list (device_list.h). */
#include "tools/device_list.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gridemst.h"

/* A device number: decimal digits only, within int. */
static int device_number(const char *s, int *out)
{
    if (*s == '\0' || strspn(s, "0123456789") != strlen(s) || strlen(s) > 9)
        return -1;
    *out = (int)strtol(s, NULL, 10);
    return 0;
}

int gemst_parse_device_list(const char *value, int most, int *ordinal, int *n_devices, char *why, size_t why_size)
{
    if (strcmp(value, "all") == 0) {
        *n_devices = GRIDEMST_ALL_DEVICES;
        return 0;
    }
    int count = 0;
    for (const char *at = value;; count++) {
        const size_t len = strcspn(at, ",");
        char one[24];
        if (count == most) {
            snprintf(why, why_size, "more than %d devices in '%s'", most, value);
            return -1;
        }
        if (len == 0 || len >= sizeof one) {
            snprintf(why, why_size, "expected device numbers separated by commas, or all, got '%s'", value);
            return -1;
        }
        memcpy(one, at, len);
        one[len] = '\0';
        if (device_number(one, &ordinal[count]) != 0) {
            snprintf(why, why_size, "'%s' in '%s' is not a device number", one, value);
            return -1;
        }
        if (at[len] == '\0')
            break;
        at += len + 1;
    }
    *n_devices = count + 1;
    return 0;
}
