/* A sensor's OSCORE loop on a host: the context from a key file (keygen
 * --scheme oscore:ALG), sequence numbers reserved in two slots of a file as
 * a device keeps them in EEPROM, and COUNT readings protected for the
 * gateway, one line each: "SEQUENCE HEX". Refusals print the library's
 * words and exit 2. For tests/oscore_c.rs and crates/cli/tests/oscore_c_gateway_cli.rs.
 *   oscore_readings KEY_FILE SLOT_FILE COUNT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ciphermeter_seal.h"

static bool slot_read(void *ctx, size_t slot, uint8_t *out) {
    FILE *f = fopen((const char *)ctx, "rb");
    if (!f) return false;
    bool ok = fseek(f, (long)(slot * CM_SLOT_LEN), SEEK_SET) == 0 &&
              fread(out, 1, CM_SLOT_LEN, f) == CM_SLOT_LEN;
    fclose(f);
    return ok;
}

static bool slot_write(void *ctx, size_t slot, const uint8_t *bytes) {
    FILE *f = fopen((const char *)ctx, "r+b");
    if (!f) f = fopen((const char *)ctx, "w+b");
    if (!f) return false;
    bool ok = fseek(f, (long)(slot * CM_SLOT_LEN), SEEK_SET) == 0 &&
              fwrite(bytes, 1, CM_SLOT_LEN, f) == CM_SLOT_LEN && fflush(f) == 0 &&
              fsync(fileno(f)) == 0;
    return fclose(f) == 0 && ok;
}

static int refuse(const char *what, int32_t status) {
    fprintf(stderr, "%s: %s (%d)\n", what, cm_strerror(status), (int)status);
    return 2;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: oscore_readings KEY_FILE SLOT_FILE COUNT\n");
        return 2;
    }
    static uint8_t file[4096];
    FILE *k = fopen(argv[1], "rb");
    if (!k) {
        perror(argv[1]);
        return 2;
    }
    size_t file_len = fread(file, 1, sizeof file, k);
    fclose(k);

    static cm_oscore_context ctx; /* zeroed: no context yet */
    int32_t s = cm_oscore_context_from_file(&ctx, file, file_len);
    memset(file, 0, sizeof file);
    if (s != CM_OK) return refuse("cm_oscore_context_from_file", s);

    cm_slots slots = {argv[2], slot_read, slot_write};
    cm_counter counter;
    if ((s = cm_counter_resume(&slots, &counter)) != CM_OK) return refuse("cm_counter_resume", s);

    long count = atol(argv[3]);
    for (long i = 0; i < count; i++) {
        uint64_t sequence;
        if ((s = cm_counter_reserve(&slots, &counter, &sequence)) != CM_OK)
            return refuse("cm_counter_reserve", s);
        char reading[128];
        int n = snprintf(reading, sizeof reading,
                         "{\"t\":%ld,\"id\":\"Logger1\",\"s_t\":\"tc\",\"s_d\":[{\"d\":0,\"t\":12.5}]}",
                         1555666777L + i);
        uint8_t out[256];
        size_t out_len;
        s = cm_oscore_protect(&ctx, sequence, NULL, 50, (const uint8_t *)reading, (size_t)n, out,
                              sizeof out, &out_len);
        if (s != CM_OK) return refuse("cm_oscore_protect", s);
        printf("%llu ", (unsigned long long)sequence);
        for (size_t j = 0; j < out_len; j++) printf("%02x", out[j]);
        printf("\n");
    }
    cm_oscore_context_wipe(&ctx);
    return 0;
}
