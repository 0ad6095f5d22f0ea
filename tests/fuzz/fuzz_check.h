/*
 * fuzz_check.h: what every harness in tests/fuzz shares: CHECK, which turns
 * a broken promise of a decoder into a crash libFuzzer records (abort), and
 * the entry point's prototype (-Wmissing-prototypes).
 */
#ifndef FUZZ_CHECK_H
#define FUZZ_CHECK_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond) \
    do { \
        if (!(cond)) { \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #cond); \
            abort(); \
        } \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif /* FUZZ_CHECK_H */
