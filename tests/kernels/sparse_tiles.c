/* The GPU's way of choosing each voxel's points (kernels/sparse.cu, steps
 * 1 to 3) modelled on the CPU, against a plain pass in input order: the
 * slots, and which point goes in which row of each.  The model runs the
 * warps' chunks of a tile in a random interleaving and inserts a chunk's
 * cells in a random order, as the GPU's races may, so that the table
 * layouts the GPU could build are all exercised.  Cells are drawn
 * directly rather than located: few distinct cells, one cell, points
 * outside the grid, clouds around the tile size, a cell once per tile,
 * runs in order, cells whose hashes collide at the end of the table.
 * sparse_gpu.c checks the kernels themselves against the CPU. */
#include <gst/check/gstcheck.h>

#include "testutil.h"
#include "sparse-math.h"

#define NONE RC_SPARSE_NONE
#define WARPS RC_SPARSE_TILE_WARPS
#define CHUNKS RC_SPARSE_TILE_CHUNKS
#define TILE RC_SPARSE_TILE_POINTS
#define TABLE RC_SPARSE_TABLE_SIZE

static GRand *rand_;

typedef struct
{
  guint32 key, count;
} Entry;

/* What the model computes for one cloud of cells. */
typedef struct
{
  guint32 n, m, k, n_cells, voxels;
  const guint32 *cells;
  guint32 *first, *tile_rank, *slot, *members, *counts;
  Entry *tables;
} Model;

/* A tile's table while the tile is ranked (the GPU's shared memory). */
typedef struct
{
  guint32 keys[TABLE];
  guint8 counts[TABLE][WARPS];
  guint32 entry[TILE], warp_rank[TILE];
} TileTable;

static guint32
insert (TileTable * t, guint32 cell)
{
  guint32 i = rc_sparse_table_hash (cell);

  while (t->keys[i] != NONE && t->keys[i] != cell)
    i = (i + 1) % TABLE;
  t->keys[i] = cell;
  return i;
}

/* One chunk of warp @w: its cells' groups, leaders in a random order. */
static void
rank_chunk (Model * md, TileTable * t, guint32 tile, guint w, guint r)
{
  guint32 base = tile * TILE + w * 32 * CHUNKS + r * 32, c[32];
  guint order[32];

  for (guint lane = 0; lane < 32; lane++) {
    c[lane] = base + lane < md->n ? md->cells[base + lane] : NONE;
    order[lane] = lane;
  }
  for (guint i = 31; i > 0; i--) {
    guint j = g_rand_int_range (rand_, 0, i + 1), tmp = order[i];
    order[i] = order[j];
    order[j] = tmp;
  }
  for (guint i = 0; i < 32; i++) {
    guint leader = order[i], size = 0, e, before;
    gboolean is_leader = c[leader] != NONE;

    for (guint l = 0; l < leader && is_leader; l++)
      is_leader = c[l] != c[leader];
    if (!is_leader)
      continue;
    for (guint l = leader; l < 32; l++)
      size += c[l] == c[leader];
    e = insert (t, c[leader]);
    before = t->counts[e][w];
    fail_unless (before + size < 256, "a warp's count overflows its byte");
    t->counts[e][w] = (guint8) (before + size);
    for (guint l = leader, below = 0; l < 32; l++) {
      if (c[l] != c[leader])
        continue;
      t->entry[base + l - tile * TILE] = e;
      t->warp_rank[base + l - tile * TILE] = before + below++;
    }
  }
}

/* Step 1 for one tile: ranks in the tile, first points, the table. */
static void
rank_tile (Model * md, TileTable * t, guint32 tile)
{
  guint next[WARPS] = { 0 }, left = WARPS * CHUNKS;

  memset (t->keys, 0xff, sizeof (t->keys));
  memset (t->counts, 0, sizeof (t->counts));
  while (left > 0) {
    guint w = g_rand_int_range (rand_, 0, WARPS);
    if (next[w] == CHUNKS)
      continue;
    rank_chunk (md, t, tile, w, next[w]++);
    left--;
  }
  for (guint32 i = 0; i < TILE && tile * TILE + i < md->n; i++) {
    guint32 p = tile * TILE + i, c = md->cells[p], e = t->entry[i];
    guint w = i / (32 * CHUNKS);
    if (c == NONE)
      continue;
    md->tile_rank[p] = t->warp_rank[i];
    for (guint v = 0; v < w; v++)
      md->tile_rank[p] += t->counts[e][v];
    if (md->tile_rank[p] == 0)
      md->first[c] = MIN (md->first[c], p);
  }
  for (guint32 i = 0; i < TABLE; i++) {
    Entry *e = md->tables + (gsize) tile * TABLE + i;
    e->key = t->keys[i];
    e->count = 0;
    for (guint v = 0; v < WARPS; v++)
      e->count += t->counts[i][v];
  }
}

static guint32
table_count (const Entry * table, guint32 cell)
{
  for (guint32 i = rc_sparse_table_hash (cell);; i = (i + 1) % TABLE) {
    if (table[i].key == cell)
      return table[i].count;
    if (table[i].key == NONE)
      return 0;
  }
}

/* Steps 2 and 3: the slots, then each point's row. */
static void
place (Model * md)
{
  guint32 flags = 0;

  for (guint32 p = 0; p <= md->n; p++) {
    guint32 c = p < md->n ? md->cells[p] : NONE;
    md->slot[p] = flags;
    flags += c != NONE && md->first[c] == p;
  }
  md->voxels = md->slot[md->n];
  for (guint32 p = 0; p < md->n; p++) {
    guint32 c = md->cells[p], f, s, row;
    if (c == NONE)
      continue;
    f = md->first[c];
    s = md->slot[f];
    row = md->tile_rank[p];
    for (guint32 u = p / TILE; s < md->m && row < md->k && u > f / TILE; u--)
      row += table_count (md->tables + (gsize) (u - 1) * TABLE, c);
    if (s >= md->m || row >= md->k)
      continue;
    fail_unless (md->members[(gsize) s * md->k + row] == NONE,
        "two points in slot %u row %u", s, row);
    md->members[(gsize) s * md->k + row] = p;
    md->counts[s] = MAX (md->counts[s], row + 1);
  }
}

/* The model on @cells against the plain pass in input order. */
static void
check (const guint32 * cells, guint32 n, guint32 n_cells, guint32 m, guint32 k)
{
  guint32 tiles = (n + TILE - 1) / TILE, used = 0;
  Model md = { n, m, k, n_cells, 0, cells, NULL, NULL, NULL, NULL, NULL,
    NULL
  };
  TileTable *t = g_new (TileTable, 1);
  gint64 *slot_of = g_new (gint64, n_cells);
  guint32 *seen = g_new0 (guint32, n_cells);

  md.first = g_new (guint32, n_cells);
  md.tile_rank = g_new (guint32, n + 1);
  md.slot = g_new (guint32, n + 1);
  md.members = g_new (guint32, (gsize) m * k);
  md.counts = g_new0 (guint32, m);
  md.tables = g_new (Entry, (gsize) tiles * TABLE + 1);
  memset (md.first, 0xff, n_cells * 4);
  memset (md.members, 0xff, (gsize) m * k * 4);
  for (guint32 tile = 0; tile < tiles; tile++)
    rank_tile (&md, t, tile);
  place (&md);

  memset (slot_of, 0xff, n_cells * sizeof (gint64));
  for (guint32 p = 0; p < n; p++) {
    guint32 c = cells[p], row;
    if (c == NONE)
      continue;
    if (slot_of[c] < 0)
      slot_of[c] = used++;
    row = seen[c]++;
    if (slot_of[c] < m && row < k)
      fail_unless (md.members[(gsize) slot_of[c] * k + row] == p,
          "slot %" G_GINT64_FORMAT " row %u: point %u, want %u", slot_of[c],
          row, md.members[(gsize) slot_of[c] * k + row], p);
  }
  fail_unless_equals_int (md.voxels, used);
  for (guint32 c = 0; c < n_cells; c++)
    if (slot_of[c] >= 0 && slot_of[c] < m)
      fail_unless_equals_int (md.counts[slot_of[c]], MIN (seen[c], k));
  for (guint32 s = used; s < m; s++)
    fail_unless_equals_int (md.counts[s], 0);
  g_free (md.first);
  g_free (md.tile_rank);
  g_free (md.slot);
  g_free (md.members);
  g_free (md.counts);
  g_free (md.tables);
  g_free (t);
  g_free (slot_of);
  g_free (seen);
}

/* Random cells out of @n_cells, a tenth of them outside (NONE). */
static guint32 *
random_cells (guint32 n, guint32 n_cells)
{
  guint32 *cells = g_new (guint32, n + 1);

  for (guint32 p = 0; p < n; p++)
    cells[p] = g_rand_int_range (rand_, 0, 10) == 0 ? NONE :
        (guint32) g_rand_int_range (rand_, 0, n_cells);
  return cells;
}

GST_START_TEST (test_random)
{
  guint32 universes[] = { 1, 5, 60, 3000, 100000 };
  guint32 ks[] = { 1, 4, 32, 225, 300, 2000 };

  for (int round = 0; round < 30; round++) {
    guint32 n_cells = universes[round % G_N_ELEMENTS (universes)];
    guint32 n = g_rand_int_range (rand_, 0, 5 * TILE);
    guint32 m = g_rand_int_range (rand_, 1, 4000);
    guint32 *cells = random_cells (n, n_cells);

    check (cells, n, n_cells, m, ks[round % G_N_ELEMENTS (ks)]);
    g_free (cells);
  }
}

GST_END_TEST;

/* Every point in one cell; clouds of about a tile and empty ones. */
GST_START_TEST (test_one_cell_and_sizes)
{
  guint32 sizes[] = { 0, 1, 31, 32, 33, TILE - 1, TILE, TILE + 1, 2 * TILE,
    3 * TILE + 5
  };
  guint32 ks[] = { 1, 32, 224, 300, TILE + 7, 10000 };

  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++) {
    guint32 *one = g_new0 (guint32, sizes[i] + 1);
    guint32 *some = random_cells (sizes[i], 40);

    for (guint j = 0; j < G_N_ELEMENTS (ks); j++) {
      check (one, sizes[i], 1, 3, ks[j]);
      check (some, sizes[i], 40, 7, ks[j]);
    }
    g_free (one);
    g_free (some);
  }
}

GST_END_TEST;

/* Cell 0 once per tile among cells seen once (the look-back crosses
 * every tile); runs of 50 in order, as a scanning sensor gives. */
GST_START_TEST (test_spread_and_runs)
{
  guint32 n = 40 * TILE + 3;
  guint32 *spread = g_new (guint32, n), *runs = g_new (guint32, n);

  for (guint32 p = 0; p < n; p++) {
    spread[p] = p % TILE == TILE / 2 ? 0 : p + 1;
    runs[p] = p / 50;
  }
  check (spread, n, n + 1, n, 32);
  check (spread, n, n + 1, 5000, 64);
  check (runs, n, n / 50 + 1, 1000, 32);
  check (runs, n, n / 50 + 1, 100000, 60);
  g_free (spread);
  g_free (runs);
}

GST_END_TEST;

/* 400 cells whose probes all start at the table's last entry: chains
 * that wrap around, in a tile and across tiles. */
GST_START_TEST (test_colliding_cells)
{
  guint32 pool[400], found = 0, n = 3 * TILE, n_cells;
  guint32 *cells = g_new (guint32, n);

  for (guint32 c = 0; found < G_N_ELEMENTS (pool); c++)
    if (rc_sparse_table_hash (c) == TABLE - 1)
      pool[found++] = c;
  n_cells = pool[found - 1] + 1;
  for (guint32 p = 0; p < n; p++)
    cells[p] = pool[g_rand_int_range (rand_, 0, found)];
  check (cells, n, n_cells, 300, 20);
  check (cells, n, n_cells, 4000, 1);
  g_free (cells);
}

GST_END_TEST;

static Suite *
sparse_tiles_suite (void)
{
  Suite *s = suite_create ("kernels-sparse-tiles");
  TCase *tc = tcase_create ("general");

  rand_ = test_rand_new ();
  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_random);
  tcase_add_test (tc, test_one_cell_and_sizes);
  tcase_add_test (tc, test_spread_and_runs);
  tcase_add_test (tc, test_colliding_cells);
  return s;
}

GST_CHECK_MAIN (sparse_tiles);
