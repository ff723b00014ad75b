/* What the library says seals each scheme named in argv: one line per
 * scheme, "SCHEME STATUS TEXT". For tests/build_refusals.rs. */
#include <stdio.h>

#include "ciphermeter_seal.h"

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        const char *text = NULL;
        int32_t status = cm_implementation(argv[i], &text);
        printf("%s %d %s\n", argv[i], (int)status, status == CM_OK ? text : cm_strerror(status));
    }
    return 0;
}
