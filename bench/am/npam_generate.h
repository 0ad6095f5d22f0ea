/*
 * npam_generate.h: the payload that npam_bench and npam_icount generate into
 * the buffer on every send (the paper's testam "-src-generate"): consecutive
 * 32-bit integers, continuing across messages.  Included by one file per
 * program.
 */
#ifndef NPAM_GENERATE_H
#define NPAM_GENERATE_H
#include <stddef.h>
#include <stdint.h>

static uint32_t gen_seq;

static inline void generate(void *p, size_t n)
{
    uint32_t *w = p, s = gen_seq;
    size_t i, words = n / 4;
    for (i = 0; i < words; i++) w[i] = s++;
    for (size_t j = words * 4; j < n; j++) ((unsigned char *)p)[j] = (unsigned char)s;
    gen_seq = s + 1;
}
#endif
