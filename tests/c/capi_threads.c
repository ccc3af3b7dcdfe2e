/*
 * Two host threads query the same movecore board at once (tests/test_capi.py).
 * The main thread first answers every query alone (the reference); then each thread
 * asks all of them again, several rounds, with reach and batch calls interleaved and
 * the other thread changing nothing. Prints "queries Q mismatches M errors E".
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "movecore.h"

#define W 24
#define H 24
#define N (W * H)
#define STARTS 24
#define ROUNDS 6

static mc_board board;
static mc_mover mover;
static int32_t starts[STARTS], budgets[STARTS];
static int32_t ref_cells[STARTS][N], ref_costs[STARTS][N];
static size_t ref_n[STARTS];

typedef struct { int id; long queries, mismatches, errors; } job;

static int same(size_t q, const int32_t *cells, const int32_t *costs, size_t n)
{
    return n == ref_n[q] && !memcmp(cells, ref_cells[q], n * sizeof *cells)
           && !memcmp(costs, ref_costs[q], n * sizeof *costs);
}

static void *worker(void *arg)
{
    job *j = arg;
    int32_t cells[N], costs[N];
    int32_t *bcells = malloc(sizeof(int32_t) * N * STARTS);
    int32_t *bcosts = malloc(sizeof(int32_t) * N * STARTS);
    int64_t offsets[STARTS + 1];
    for (int round = 0; round < ROUNDS; round++) {
        for (size_t k = 0; k < STARTS; k++) {
            size_t q = (k * 7 + (size_t)j->id * 5 + (size_t)round) % STARTS, n = 0;
            mc_status st = mc_board_reach(board, &mover, starts[q], budgets[q], cells,
                                          costs, NULL, NULL, N, &n);
            j->queries++;
            if (st != MC_OK) { j->errors++; fprintf(stderr, "%s\n", mc_last_error()); }
            else if (!same(q, cells, costs, n)) j->mismatches++;
        }
        if (round % 2 == j->id % 2) {
            size_t total = 0;
            mc_status st = mc_board_reach_batch(board, &mover, starts, budgets, STARTS,
                                                offsets, bcells, bcosts, NULL,
                                                (size_t)N * STARTS, &total);
            j->queries += STARTS;
            if (st != MC_OK) { j->errors++; fprintf(stderr, "%s\n", mc_last_error()); }
            else
                for (size_t q = 0; q < STARTS; q++)
                    if (!same(q, bcells + offsets[q], bcosts + offsets[q],
                              (size_t)(offsets[q + 1] - offsets[q])))
                        j->mismatches++;
        }
    }
    free(bcells);
    free(bcosts);
    return NULL;
}

int main(void)
{
    int32_t coords[2 * N], cost[N], height[N], occupant[N];
    uint32_t seed = 12345;
    for (int i = 0; i < N; i++) {
        coords[2 * i] = i % W;
        coords[2 * i + 1] = i / W;
        seed = seed * 1103515245u + 12345u;
        cost[i] = (seed >> 16) % 7 == 0 ? -1 : 1 + (int32_t)((seed >> 20) % 3);
        height[i] = (int32_t)((seed >> 8) % 3);
        occupant[i] = (seed >> 4) % 13 == 0 ? (int32_t)((seed >> 24) % 2) : MC_OCC_EMPTY;
    }
    if (mc_board_create(MC_GRID_SQUARE8, coords, cost, height, NULL, N, &board) != MC_OK
        || mc_board_set_occupants(board, occupant, N) != MC_OK) {
        fprintf(stderr, "setup: %s\n", mc_last_error());
        return 1;
    }
    mc_mover_init(&mover);
    mover.climb_per_level = 1;
    for (int q = 0; q < STARTS; q++) {
        starts[q] = (int32_t)((q * 97 + 13) % N);
        budgets[q] = 4 + q % 9;
        if (mc_board_reach(board, &mover, starts[q], budgets[q], ref_cells[q], ref_costs[q],
                           NULL, NULL, N, &ref_n[q]) != MC_OK) {
            fprintf(stderr, "reference: %s\n", mc_last_error());
            return 1;
        }
    }
    pthread_t t[2];
    job jobs[2] = {{0, 0, 0, 0}, {1, 0, 0, 0}};
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, &jobs[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    long queries = jobs[0].queries + jobs[1].queries;
    printf("queries %ld mismatches %ld errors %ld\n", queries,
           jobs[0].mismatches + jobs[1].mismatches, jobs[0].errors + jobs[1].errors);
    mc_board_free(board);
    return 0;
}
