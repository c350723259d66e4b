/* libFuzzer harness of the text point reader (see fuzz_common.h). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_input_file(data, size);
    gemst_pointset ps;
    gridemst_error err = {0};
    int rc = gemst_read_text(path, &ps, fuzz_check_warning, NULL, &err);
    fuzz_check_result(rc, &err, &ps, GRIDEMST_FLOAT64);
    if (rc == GRIDEMST_OK && ps.is_tsplib)
        abort();
    gemst_pointset_free(&ps);
    return 0;
}
