/*
 * reach_example.c -- build a small hex board through the movecore C ABI, ask where a
 * figure may end its move, and print every end with its cost, whether it had to stop
 * there and the cell it came from. With a file argument, also solve that JSON scenario
 * with mc_solve_json and print the answer.
 *
 * Build (DIR holds libmovecore.so and movecore.h, from `movecore capi build DIR`):
 *     gcc -O2 -o reach_example reach_example.c -I DIR -L DIR -lmovecore -Wl,-rpath,DIR
 * or: make -C bindings/examples MOVECORE_DIR=DIR   (writes DIR/reach_example)
 *
 * The board is the hex of radius 2 around (0, 0) (19 cells):
 *     (1, 0)  rough ground, cost 2         (0, 1)  a rock, cost -1 (cannot be entered)
 *     (-1, 0) a ledge, height 2 (climbing costs 1 per level)
 *     (1, -1) a bog: entering it ends the move (MC_CELL_STOP)
 *     (0, -1) a friend (team 0: passed, not ended on)
 *     (-1, 1) an enemy (team 1: blocks)
 * The hero (team 0) stands on (0, 0) with 3 movement points.
 */
#include <stdio.h>
#include <stdlib.h>
#include "movecore.h"

#define RADIUS 2
#define MAX_CELLS 64

static int check(mc_status st, const char *what)
{
    if (st != MC_OK) {
        fprintf(stderr, "%s failed (status %d): %s\n", what, (int)st, mc_last_error());
        exit(1);
    }
    return 0;
}

static int cell_at(const int32_t *coords, size_t n, int32_t q, int32_t r)
{
    for (size_t i = 0; i < n; i++)
        if (coords[2 * i] == q && coords[2 * i + 1] == r)
            return (int)i;
    return -1;
}

static void solve_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(1); }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)size + 1);
    if (fread(text, 1, (size_t)size, f) != (size_t)size) { perror(path); exit(1); }
    text[size] = '\0';
    fclose(f);

    size_t needed = 0;
    check(mc_solve_json(text, NULL, 0, &needed), "mc_solve_json (size)");
    char *out = malloc(needed);
    check(mc_solve_json(text, out, needed, &needed), "mc_solve_json");
    printf("%s\n", out);
    free(out);
    free(text);
}

int main(int argc, char **argv)
{
    int32_t coords[2 * MAX_CELLS], cost[MAX_CELLS], height[MAX_CELLS], occupant[MAX_CELLS];
    uint8_t flags[MAX_CELLS];
    size_t n = 0;

    for (int32_t q = -RADIUS; q <= RADIUS; q++)
        for (int32_t r = -RADIUS; r <= RADIUS; r++)
            if (abs(q + r) <= RADIUS) {
                coords[2 * n] = q;
                coords[2 * n + 1] = r;
                cost[n] = 1;
                height[n] = 0;
                flags[n] = 0;
                occupant[n] = MC_OCC_EMPTY;
                n++;
            }
    cost[cell_at(coords, n, 1, 0)] = 2;
    cost[cell_at(coords, n, 0, 1)] = -1;
    height[cell_at(coords, n, -1, 0)] = 2;
    flags[cell_at(coords, n, 1, -1)] = MC_CELL_STOP;
    occupant[cell_at(coords, n, 0, -1)] = 0;
    occupant[cell_at(coords, n, -1, 1)] = 1;

    mc_board board = 0;
    check(mc_board_create(MC_GRID_HEX, coords, cost, height, flags, n, &board),
          "mc_board_create");
    check(mc_board_set_occupants(board, occupant, n), "mc_board_set_occupants");

    mc_mover hero;
    mc_mover_init(&hero);
    hero.team = 0;
    hero.climb_per_level = 1;

    int32_t start = cell_at(coords, n, 0, 0), budget = 3;
    int32_t cells[MAX_CELLS], costs[MAX_CELLS], parents[MAX_CELLS];
    uint8_t stopped[MAX_CELLS];
    size_t n_ends = 0;
    check(mc_board_reach(board, &hero, start, budget, cells, costs, stopped, parents,
                         MAX_CELLS, &n_ends), "mc_board_reach");

    printf("movecore %s: %zu cells, hero at (0, 0), budget %d: %zu ends\n", mc_version(), n,
           budget, n_ends);
    for (size_t i = 0; i < n_ends; i++) {
        int32_t c = cells[i], p = parents[i];
        printf("end %d %d cost %d stopped %d", coords[2 * c], coords[2 * c + 1], costs[i],
               stopped[i]);
        if (p >= 0)
            printf(" from %d %d\n", coords[2 * p], coords[2 * p + 1]);
        else
            printf(" start\n");
    }

    check(mc_board_free(board), "mc_board_free");
    if (argc > 1)
        solve_file(argv[1]);
    return 0;
}
