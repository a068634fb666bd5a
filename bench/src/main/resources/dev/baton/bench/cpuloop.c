/*
 * The CPU loop of `bench/run agent-job` (issue 45): turns of a 64-bit LCG, timed per repetition
 * with CLOCK_MONOTONIC; prints one line per repetition, its nanoseconds. No memory traffic and no
 * system call inside a repetition, so its spread is what shares the core with it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: cpuloop TURNS REPETITIONS\n");
        return 2;
    }
    long turns = atol(argv[1]);
    int repetitions = atoi(argv[2]);
    volatile uint64_t sink;
    for (int r = 0; r < repetitions; r++) {
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        uint64_t x = 88172645463325252ULL;
        for (long i = 0; i < turns; i++) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        sink = x;
        clock_gettime(CLOCK_MONOTONIC, &b);
        printf("%lld\n", (long long) ((b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec)));
    }
    (void) sink;
    return 0;
}
