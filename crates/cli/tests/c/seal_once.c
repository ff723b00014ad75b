/* One cm_seal call, as C firmware makes it: argv gives the scheme, the key
 * and key id in hex, the container (0 json, 1 binary, 2 cose), the counter
 * and the reading; stdout gets the sealed message in hex. For
 * build_commands_cli.rs. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ciphermeter_seal.h"

static size_t unhex(const char *hex, uint8_t *out, size_t cap) {
    size_t n = strlen(hex) / 2;
    for (size_t i = 0; i < n && i < cap; i++) {
        unsigned v;
        sscanf(hex + 2 * i, "%2x", &v);
        out[i] = (uint8_t)v;
    }
    return n < cap ? n : cap;
}

int main(int argc, char **argv) {
    if (argc != 7) {
        fprintf(stderr, "usage: seal_once SCHEME KEY_HEX KEY_ID_HEX CONTAINER COUNTER READING\n");
        return 2;
    }
    uint8_t key[64], key_id[64], out[1024];
    size_t key_len = unhex(argv[2], key, sizeof key);
    size_t key_id_len = unhex(argv[3], key_id, sizeof key_id);
    uint8_t container = (uint8_t)atoi(argv[4]);
    uint64_t counter = strtoull(argv[5], NULL, 10);
    size_t out_len = 0;
    int status = cm_seal(argv[1], key, key_len, key_id, key_id_len, container, counter,
                         (const uint8_t *)argv[6], strlen(argv[6]), out, sizeof out, &out_len);
    if (status != CM_OK) {
        fprintf(stderr, "cm_seal: %s\n", cm_strerror(status));
        return 1;
    }
    for (size_t i = 0; i < out_len; i++) printf("%02x", out[i]);
    printf("\n");
    return 0;
}
