/*
 * The optimal search of engine/core/families/kumo/search.py, compiled.
 *
 * This is the same exact branch and bound as the Python solver (engine.core.families.kumo.search._Solver):
 * the same nodes, bounds, candidate order and float operations in the same order, so that
 * every value and every argmin is bit for bit the Python solver's, which the test suite
 * checks against the literal reference recursion. Read the module docstring of search.py for
 * why each step keeps the reference's results; the comments here only say what maps to what.
 *
 * Compile with -ffp-contract=off: a fused multiply-add would round differently from the
 * reference's separate multiply and add.
 *
 * Limits: at most 64 truths and 64 actions (a truth set and an action set are one uint64_t
 * each); search.py uses the Python solver beyond that.
 *
 * One entry point:
 *
 *     search(state_masks, truths, actions, observed) -> (expected, path)
 *
 * state_masks[j] is a tuple with, for every state of action j in the domain's order, the
 * mask of the truths that state rules out (bit i = truth i). truths and actions are the
 * starting masks. expected is E(truths, actions). If observed is None, path holds the argmin
 * action of the start (empty at a base case); otherwise observed[j] is the index of the state
 * action j's observation falls in, and path is the oracle's whole sequence of actions.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SMOOTHING 1e-9
/* search.py's _CUTOFF_MARGIN, _NEAR and _PRIORITY_PER_TRUTH. */
#define CUTOFF_MARGIN 1e-12
#define NEAR 1e-9
#define PRIORITY_PER_TRUTH 1.0
/* How many new nodes between two checks for a pending signal (Ctrl-C, an alarm). */
#define SIGNAL_CHECK_EVERY 65536

static int popcount(uint64_t x) { return __builtin_popcountll(x); }
static int lowest(uint64_t x) { return __builtin_ctzll(x); }
static uint64_t hash2(uint64_t a, uint64_t b) {
    uint64_t x = a * 0x9E3779B97F4A7C15ULL ^ (b + 0x632BE59BD9B4E019ULL + (a << 6) + (a >> 2));
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ULL;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBULL;
    x ^= x >> 31;
    return x;
}

/* ---- views: what the actions look like from one truth set (search.py's _View) ---------- */

typedef struct View View;

typedef struct {
    double p;     /* P(s) */
    uint64_t t;   /* T - R_s */
    uint64_t hit; /* hits[j] & (T - R_s) */
    View *view;   /* the view of t, once looked up */
} Kid;

struct View {
    uint64_t truths;
    uint64_t useful;
    uint64_t *hits;  /* [m] */
    uint64_t *twins; /* [m] */
    double *full;    /* [m] */
    int *kid_off;    /* [m] into kids */
    int *kid_n;      /* [m] */
    Kid *kids;
    uint64_t *classes; /* groups of two or more twins */
    int n_classes;
};

/* ---- nodes (search.py's _Node) ----------------------------------------------------------- */

typedef struct {
    uint64_t truths;
    uint64_t actions;
    double floor;
    int exact;
} Node;

/* A candidate (search.py's _Entry) with its kids' parts. */
typedef struct {
    int index;
    int n_kids;
    double bound;    /* one-level bound: the sum of the kids' P(s) */
    double priority; /* _PRIORITY_PER_TRUTH * sum of P(s) * (size - 2) */
    uint64_t rest;   /* the actions left after it */
    double *p;       /* [n_kids] P(s), state order */
    uint64_t *t;     /* [n_kids] truth masks */
    Kid **src;       /* [n_kids] the view's kids they come from */
    int *refine;     /* [n_kids] smallest kid first */
    int *child;      /* [n_kids] node indices, or -1 before they are looked up */
    int have_children;
} Cand;

typedef struct {
    double key;
    int index;
    double bound;
    Cand *cand;
} Ranked;

/* A slot of the node index: the node's position in the pool (-1: empty) and the upper half of
   its key's hash, so that a probe rarely has to read a node that is not the one wanted. */
typedef struct {
    int32_t index;
    uint32_t check;
} Slot;

typedef struct {
    int n_actions;
    int *n_states;         /* [m] */
    uint64_t **masks;      /* [m][n_states] */
    uint64_t *cover;       /* [m] */
    uint64_t *coverers;    /* [n] actions able to rule out truth i */
    int total_states, max_states;

    /* views: open addressing on the truth mask */
    View **views;
    size_t view_cap, view_count;

    /* nodes: a pool (stable indices) and an open-addressing index into it */
    Node *nodes;
    size_t node_count, node_cap;
    Slot *table;
    size_t table_cap;
    size_t since_signal_check;

    /* scratch memory for candidates, used like a stack */
    char *arena;
    size_t arena_top, arena_cap;

    int failed; /* a Python exception is set; unwind */
} Solver;

static void *arena_take(Solver *s, size_t size) {
    size = (size + 15) & ~(size_t)15;
    if (s->arena_top + size > s->arena_cap) {
        if (!s->failed) {
            PyErr_SetString(PyExc_RuntimeError, "optimal search: scratch memory exhausted");
        }
        s->failed = 1;
        return NULL;
    }
    void *p = s->arena + s->arena_top;
    s->arena_top += size;
    return p;
}

static void fail_nomem(Solver *s) {
    if (!s->failed) {
        PyErr_NoMemory();
    }
    s->failed = 1;
}

/* ---- views ---------------------------------------------------------------------------------- */

static View *build_view(Solver *s, uint64_t truths) {
    int m = s->n_actions;
    int count = popcount(truths);
    View *v = calloc(1, sizeof(View));
    if (!v) return NULL;
    v->truths = truths;
    v->hits = calloc(m, sizeof(uint64_t));
    v->twins = calloc(m, sizeof(uint64_t));
    v->full = calloc(m, sizeof(double));
    v->kid_off = calloc(m, sizeof(int));
    v->kid_n = calloc(m, sizeof(int));
    v->kids = malloc(sizeof(Kid) * (size_t)(s->total_states ? s->total_states : 1));
    v->classes = malloc(sizeof(uint64_t) * (size_t)(m ? m : 1));
    if (!v->hits || !v->twins || !v->full || !v->kid_off || !v->kid_n || !v->kids ||
        !v->classes) {
        return NULL; /* leaks on an out-of-memory path only */
    }
    int n_kids = 0;
    uint64_t grouped = 0;
    for (int j = 0; j < m; j++) {
        uint64_t hit = s->cover[j] & truths;
        if (!hit) continue;
        uint64_t bit = 1ULL << j;
        v->useful |= bit;
        v->hits[j] = hit;
        /* P(s) = W(s) / (float(sum W) + 1e-9), W(s) = |T - R_s| */
        int ns = s->n_states[j];
        long total_w = 0;
        for (int k = 0; k < ns; k++) total_w += count - popcount(s->masks[j][k] & truths);
        double total = (double)total_w + SMOOTHING;
        double bound = 0.0;
        v->kid_off[j] = n_kids;
        for (int k = 0; k < ns; k++) {
            uint64_t mask = s->masks[j][k] & truths;
            int weight = count - popcount(mask);
            if (weight > 1) {
                double probability = (double)weight / total;
                bound += probability;
                uint64_t child = truths & ~mask;
                v->kids[n_kids].p = probability;
                v->kids[n_kids].t = child;
                v->kids[n_kids].hit = hit & child;
                v->kids[n_kids].view = NULL;
                n_kids++;
            }
        }
        v->kid_n[j] = n_kids - v->kid_off[j];
        v->full[j] = bound;
    }
    /* twins: the same states restricted to T, in the same order */
    for (int j = 0; j < m; j++) {
        uint64_t bit = 1ULL << j;
        if (!(v->useful & bit) || (grouped & bit)) continue;
        uint64_t group = bit;
        for (int k = j + 1; k < m; k++) {
            if (!(v->useful >> k & 1) || s->n_states[k] != s->n_states[j]) continue;
            int same = 1;
            for (int q = 0; q < s->n_states[j]; q++) {
                if ((s->masks[j][q] & truths) != (s->masks[k][q] & truths)) {
                    same = 0;
                    break;
                }
            }
            if (same) group |= 1ULL << k;
        }
        grouped |= group;
        for (uint64_t g = group; g; g &= g - 1) v->twins[lowest(g)] = group;
        if (popcount(group) > 1) v->classes[v->n_classes++] = group;
    }
    return v;
}

static int grow_views(Solver *s) {
    size_t cap = s->view_cap ? s->view_cap * 2 : 1024;
    View **views = calloc(cap, sizeof(View *));
    if (!views) return -1;
    for (size_t i = 0; i < s->view_cap; i++) {
        View *v = s->views[i];
        if (!v) continue;
        size_t h = hash2(v->truths, 0) & (cap - 1);
        while (views[h]) h = (h + 1) & (cap - 1);
        views[h] = v;
    }
    free(s->views);
    s->views = views;
    s->view_cap = cap;
    return 0;
}

static View *get_view(Solver *s, uint64_t truths) {
    if ((s->view_count + 1) * 2 > s->view_cap && grow_views(s) < 0) {
        fail_nomem(s);
        return NULL;
    }
    size_t h = hash2(truths, 0) & (s->view_cap - 1);
    while (s->views[h]) {
        if (s->views[h]->truths == truths) return s->views[h];
        h = (h + 1) & (s->view_cap - 1);
    }
    View *v = build_view(s, truths);
    if (!v) {
        fail_nomem(s);
        return NULL;
    }
    s->views[h] = v;
    s->view_count++;
    return v;
}

/* ---- nodes ---------------------------------------------------------------------------------- */

/* The smallest one-level candidate bound of a node (search.py's _smallest_bound). */
static double smallest_bound(View *v, uint64_t useful) {
    uint64_t once = 0, twice = 0;
    for (uint64_t u = useful; u; u &= u - 1) {
        uint64_t hit = v->hits[lowest(u)];
        twice |= once & hit;
        once |= hit;
    }
    double smallest = INFINITY;
    for (uint64_t u = useful; u; u &= u - 1) {
        int j = lowest(u);
        uint64_t lonely = v->hits[j] & ~twice;
        double bound;
        if (lonely) {
            bound = 0.0;
            for (int k = 0; k < v->kid_n[j]; k++) {
                Kid *kid = &v->kids[v->kid_off[j] + k];
                if (!(kid->hit & lonely)) bound += kid->p;
            }
        } else {
            bound = v->full[j];
        }
        if (bound < smallest) smallest = bound;
    }
    return smallest;
}

static int grow_table(Solver *s) {
    size_t cap = s->table_cap ? s->table_cap * 2 : 1 << 14;
    Slot *table = malloc(cap * sizeof(Slot));
    if (!table) return -1;
    for (size_t i = 0; i < cap; i++) table[i].index = -1;
    for (size_t i = 0; i < s->node_count; i++) {
        uint64_t hash = hash2(s->nodes[i].truths, s->nodes[i].actions);
        size_t h = hash & (cap - 1);
        while (table[h].index >= 0) h = (h + 1) & (cap - 1);
        table[h].index = (int32_t)i;
        table[h].check = (uint32_t)(hash >> 32);
    }
    free(s->table);
    s->table = table;
    s->table_cap = cap;
    return 0;
}

/* The node of (truths, actions), which must not be a base case (search.py's _Solver._node). */
static int get_node_in(Solver *s, View *v, uint64_t actions) {
    uint64_t truths = v->truths;
    uint64_t useful = actions & v->useful;
    for (int c = 0; c < v->n_classes; c++) {
        uint64_t group = v->classes[c];
        uint64_t present = useful & group;
        if (present) {
            /* the group's first popcount(present) members */
            uint64_t first = 0, g = group;
            for (int k = popcount(present); k > 0; k--) {
                first |= g & -g;
                g &= g - 1;
            }
            useful = (useful & ~group) | first;
        }
    }
    if ((s->node_count + 1) * 2 > s->table_cap && grow_table(s) < 0) {
        fail_nomem(s);
        return -1;
    }
    uint64_t hash = hash2(truths, useful);
    uint32_t check = (uint32_t)(hash >> 32);
    size_t h = hash & (s->table_cap - 1);
    while (s->table[h].index >= 0) {
        if (s->table[h].check == check) {
            Node *node = &s->nodes[s->table[h].index];
            if (node->truths == truths && node->actions == useful) return s->table[h].index;
        }
        h = (h + 1) & (s->table_cap - 1);
    }
    if (s->node_count == s->node_cap) {
        size_t cap = s->node_cap ? s->node_cap * 2 : 1 << 13;
        if (cap > INT32_MAX) {
            fail_nomem(s);
            return -1;
        }
        Node *nodes = realloc(s->nodes, cap * sizeof(Node));
        if (!nodes) {
            fail_nomem(s);
            return -1;
        }
        s->nodes = nodes;
        s->node_cap = cap;
    }
    if (++s->since_signal_check >= SIGNAL_CHECK_EVERY) {
        s->since_signal_check = 0;
        if (PyErr_CheckSignals() < 0) {
            s->failed = 1;
            return -1;
        }
    }
    int index = (int)s->node_count++;
    Node *node = &s->nodes[index];
    node->truths = truths;
    node->actions = useful;
    node->floor = smallest_bound(v, useful);
    /* A candidate whose kids are all base cases sums to exactly 0.0, the least possible. */
    node->exact = node->floor == 0.0;
    s->table[h].index = index;
    s->table[h].check = check;
    return index;
}

static int get_node(Solver *s, uint64_t truths, uint64_t actions) {
    View *v = get_view(s, truths);
    if (!v) return -1;
    return get_node_in(s, v, actions);
}

/* The useful actions of (truths, actions), or 0 with *base set for a base case. */
static uint64_t useful_actions(Solver *s, uint64_t truths, uint64_t actions, int *base) {
    *base = 1;
    if (popcount(truths) <= 1) return 0;
    View *v = get_view(s, truths);
    if (!v) return 0;
    uint64_t useful = actions & v->useful;
    for (uint64_t t = truths; t; t &= t - 1) {
        if (!(s->coverers[lowest(t)] & useful)) return 0;
    }
    *base = 0;
    return useful;
}

/* ---- candidates (search.py's _Solver._entries and _parts) -------------------------------- */

static Cand *entries(Solver *s, uint64_t truths, uint64_t useful, int *n_out) {
    View *v = get_view(s, truths);
    if (!v) return NULL;
    int n = popcount(useful);
    Cand *cands = arena_take(s, sizeof(Cand) * (size_t)(n ? n : 1));
    if (!cands) return NULL;
    uint64_t once = 0, twice = 0;
    for (uint64_t u = useful; u; u &= u - 1) {
        uint64_t hit = v->hits[lowest(u)];
        twice |= once & hit;
        once |= hit;
    }
    int count = 0;
    for (uint64_t u = useful; u; u &= u - 1) {
        int j = lowest(u);
        if (useful & v->twins[j] & ((1ULL << j) - 1)) continue;
        uint64_t lonely = v->hits[j] & ~twice;
        int total = v->kid_n[j];
        Cand *c = &cands[count++];
        c->index = j;
        c->rest = useful & ~(1ULL << j);
        c->p = arena_take(s, sizeof(double) * (size_t)(total ? total : 1));
        c->t = arena_take(s, sizeof(uint64_t) * (size_t)(total ? total : 1));
        c->refine = arena_take(s, sizeof(int) * (size_t)(total ? total : 1));
        c->child = arena_take(s, sizeof(int) * (size_t)(total ? total : 1));
        c->src = arena_take(s, sizeof(Kid *) * (size_t)(total ? total : 1));
        if (!c->p || !c->t || !c->refine || !c->child || !c->src) return NULL;
        int k_out = 0;
        double bound = 0.0;
        for (int k = 0; k < total; k++) {
            Kid *kid = &v->kids[v->kid_off[j] + k];
            if (lonely && (kid->hit & lonely)) continue;
            bound += kid->p;
            c->p[k_out] = kid->p;
            c->t[k_out] = kid->t;
            c->src[k_out] = kid;
            c->child[k_out] = -1;
            k_out++;
        }
        c->n_kids = k_out;
        c->bound = lonely ? bound : v->full[j];
        c->have_children = 0;
        /* refine order: (size, -P(s), position); trial-order term */
        double extra = 0.0;
        for (int k = 0; k < k_out; k++) {
            extra += c->p[k] * (double)(popcount(c->t[k]) - 2);
            c->refine[k] = k;
        }
        for (int a = 1; a < k_out; a++) {
            int key = c->refine[a];
            int b = a - 1;
            while (b >= 0) {
                int other = c->refine[b];
                int sk = popcount(c->t[key]), so = popcount(c->t[other]);
                int later = so > sk || (so == sk && (c->p[other] < c->p[key] ||
                                                     (c->p[other] == c->p[key] && other > key)));
                if (!later) break;
                c->refine[b + 1] = other;
                b--;
            }
            c->refine[b + 1] = key;
        }
        c->priority = PRIORITY_PER_TRUTH * extra;
    }
    *n_out = count;
    return cands;
}

static int children(Solver *s, Cand *c) {
    if (c->have_children) return 0;
    for (int k = 0; k < c->n_kids; k++) {
        Kid *kid = c->src[k];
        if (!kid->view && !(kid->view = get_view(s, kid->t))) return -1;
        int index = get_node_in(s, kid->view, c->rest);
        if (index < 0) return -1;
        c->child[k] = index;
    }
    c->have_children = 1;
    return 0;
}

static double ordered_sum(const double *p, const double *values, int n) {
    double total = 0.0;
    for (int k = 0; k < n; k++) total += values[k] * p[k];
    return total;
}

/* ---- the search (search.py's _Solver._value, _ranked, _minimum_sum and _sum) ------------- */

static double value(Solver *s, int node_index, double cutoff, int *complete);

static double cand_sum(Solver *s, Cand *c, double best_sum, int strict, int *complete) {
    *complete = 0;
    if (children(s, c) < 0) return 0.0;
    int n = c->n_kids;
    if (isinf(best_sum) && best_sum > 0) {
        double total = 0.0;
        for (int k = 0; k < n; k++) {
            int done;
            double v = value(s, c->child[k], INFINITY, &done);
            if (s->failed) return 0.0;
            total += v * c->p[k];
        }
        *complete = 1;
        return total;
    }
#define PRUNES(b) ((b) > best_sum || (!strict && (b) >= best_sum))
    size_t mark = s->arena_top;
    double *lows = arena_take(s, sizeof(double) * (size_t)(n ? n : 1));
    int *unknown = arena_take(s, sizeof(int) * (size_t)(n ? n : 1));
    int *inexact = arena_take(s, sizeof(int) * (size_t)(n ? n : 1));
    if (!lows || !unknown || !inexact) return 0.0;
    double near = best_sum - NEAR * (1 + fabs(best_sum));
    double estimate = 0.0;
    for (int k = 0; k < n; k++) {
        lows[k] = s->nodes[c->child[k]].floor + 1;
        estimate += lows[k] * c->p[k];
    }
    double bound;
    if (estimate >= near) {
        bound = ordered_sum(c->p, lows, n);
        if (PRUNES(bound)) goto pruned;
    }
    int n_unknown = 0;
    for (int r = 0; r < n; r++) {
        int k = c->refine[r];
        if (!s->nodes[c->child[k]].exact) unknown[n_unknown++] = k;
    }
    while (n_unknown) {
        double weight = 0.0;
        for (int u = 0; u < n_unknown; u++) weight += c->p[unknown[u]];
        double share = (best_sum - estimate) / weight;
        int n_inexact = 0;
        for (int u = 0; u < n_unknown; u++) {
            int k = unknown[u];
            double low = lows[k];
            double cutoff = low + share - 1;
            cutoff += CUTOFF_MARGIN * (1 + fabs(cutoff));
            int done;
            double v = value(s, c->child[k], cutoff, &done);
            if (s->failed) return 0.0;
            if (v > low) {
                estimate += (v - low) * c->p[k];
                lows[k] = v;
            }
            if (!done) inexact[n_inexact++] = k;
            if (estimate >= near) {
                bound = ordered_sum(c->p, lows, n);
                if (PRUNES(bound)) goto pruned;
            }
        }
        if (n_inexact == n_unknown) {
            /* Every share was cleared but rounding kept the bound short: settle exactly. */
            for (int u = 0; u < n_inexact; u++) {
                int done;
                lows[inexact[u]] = value(s, c->child[inexact[u]], INFINITY, &done);
                if (s->failed) return 0.0;
            }
            bound = ordered_sum(c->p, lows, n);
            if (PRUNES(bound)) goto pruned;
            n_inexact = 0;
        }
        memcpy(unknown, inexact, sizeof(int) * (size_t)n_inexact);
        n_unknown = n_inexact;
    }
    bound = ordered_sum(c->p, lows, n);
    if (PRUNES(bound)) goto pruned;
    s->arena_top = mark;
    *complete = 1;
    return bound;
pruned:
    s->arena_top = mark;
    return bound;
#undef PRUNES
}

static int compare_ranked(const void *a, const void *b) {
    const Ranked *x = a, *y = b;
    if (x->key < y->key) return -1;
    if (x->key > y->key) return 1;
    return (x->index > y->index) - (x->index < y->index);
}

static double minimum_sum(Solver *s, int node_index, double cutoff, int *complete) {
    *complete = 0;
    size_t mark = s->arena_top;
    uint64_t truths = s->nodes[node_index].truths, actions = s->nodes[node_index].actions;
    int n;
    Cand *cands = entries(s, truths, actions, &n);
    if (!cands) return 0.0;
    Ranked *ranked = arena_take(s, sizeof(Ranked) * (size_t)(n ? n : 1));
    if (!ranked) return 0.0;
    int n_ranked = 0;
    double floor = INFINITY;
    for (int i = 0; i < n; i++) {
        Cand *c = &cands[i];
        double bound = c->bound;
        if (bound < cutoff) {
            if (children(s, c) < 0) return 0.0;
            bound = 0.0;
            for (int k = 0; k < c->n_kids; k++) {
                bound += (s->nodes[c->child[k]].floor + 1) * c->p[k];
            }
            if (bound < cutoff) {
                ranked[n_ranked].key = bound + c->priority;
                ranked[n_ranked].index = c->index;
                ranked[n_ranked].bound = bound;
                ranked[n_ranked].cand = c;
                n_ranked++;
                continue;
            }
        }
        if (bound < floor) floor = bound;
    }
    qsort(ranked, (size_t)n_ranked, sizeof(Ranked), compare_ranked);
    double best_sum = cutoff;
    int found = 0;
    for (int r = 0; r < n_ranked; r++) {
        double bound = ranked[r].bound;
        if (bound >= best_sum) {
            if (bound < floor) floor = bound;
            continue;
        }
        int done;
        double total = cand_sum(s, ranked[r].cand, best_sum, 0, &done);
        if (s->failed) return 0.0;
        if (done) {
            best_sum = total;
            found = 1;
        } else if (total < floor) {
            floor = total;
        }
    }
    s->arena_top = mark;
    if (found) {
        *complete = 1;
        return best_sum;
    }
    return floor;
}

static double value(Solver *s, int node_index, double cutoff, int *complete) {
    Node *node = &s->nodes[node_index];
    *complete = 0;
    if (node->exact) {
        *complete = 1;
        return node->floor + 1;
    }
    if (node->floor >= cutoff) return node->floor + 1;
    int done;
    double minimum = minimum_sum(s, node_index, cutoff, &done);
    if (s->failed) return 0.0;
    node = &s->nodes[node_index]; /* the pool may have moved */
    if (done) {
        node->floor = minimum;
        node->exact = 1;
        *complete = 1;
        return minimum + 1;
    }
    if (minimum > node->floor) node->floor = minimum;
    return node->floor + 1;
}

/* E(truths, actions), or 0.0 at a base case. */
static double expected(Solver *s, uint64_t truths, uint64_t actions) {
    int base;
    uint64_t useful = useful_actions(s, truths, actions, &base);
    if (base || s->failed) return 0.0;
    int node = get_node(s, truths, useful);
    if (node < 0) return 0.0;
    int done;
    return value(s, node, INFINITY, &done);
}

/* The argmin action, -1 at a base case (search.py's _Solver.best). */
static int best(Solver *s, uint64_t truths, uint64_t actions) {
    int base;
    uint64_t useful = useful_actions(s, truths, actions, &base);
    if (base || s->failed) return -1;
    int node = get_node(s, truths, useful);
    if (node < 0) return -1;
    int done;
    value(s, node, INFINITY, &done);
    if (s->failed) return -1;
    double minimum = s->nodes[node].floor;
    size_t mark = s->arena_top;
    int n;
    Cand *cands = entries(s, truths, useful, &n);
    if (!cands) return -1;
    for (int i = 0; i < n; i++) {
        if (cands[i].bound > minimum) continue;
        double total = cand_sum(s, &cands[i], minimum, 1, &done);
        if (s->failed) return -1;
        if (done && total == minimum) {
            s->arena_top = mark;
            return cands[i].index;
        }
    }
    s->arena_top = mark;
    PyErr_SetString(PyExc_AssertionError, "no candidate reaches the minimum sum");
    s->failed = 1;
    return -1;
}

/* ---- set-up and the Python entry point ------------------------------------------------------ */

static void free_solver(Solver *s) {
    if (s->masks) {
        for (int j = 0; j < s->n_actions; j++) free(s->masks[j]);
    }
    free(s->masks);
    free(s->n_states);
    free(s->cover);
    free(s->coverers);
    for (size_t i = 0; i < s->view_cap; i++) {
        View *v = s->views[i];
        if (!v) continue;
        free(v->hits);
        free(v->twins);
        free(v->full);
        free(v->kid_off);
        free(v->kid_n);
        free(v->kids);
        free(v->classes);
        free(v);
    }
    free(s->views);
    free(s->nodes);
    free(s->table);
    free(s->arena);
}

static int read_mask(PyObject *item, uint64_t *out) {
    unsigned long long value = PyLong_AsUnsignedLongLong(item);
    if (value == (unsigned long long)-1 && PyErr_Occurred()) return -1;
    *out = (uint64_t)value;
    return 0;
}

static int setup(Solver *s, PyObject *state_masks) {
    PyObject *seq = PySequence_Fast(state_masks, "state_masks must be a sequence");
    if (!seq) return -1;
    Py_ssize_t m = PySequence_Fast_GET_SIZE(seq);
    if (m > 64) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "at most 64 actions");
        return -1;
    }
    s->n_actions = (int)m;
    s->n_states = calloc((size_t)(m ? m : 1), sizeof(int));
    s->masks = calloc((size_t)(m ? m : 1), sizeof(uint64_t *));
    s->cover = calloc((size_t)(m ? m : 1), sizeof(uint64_t));
    s->coverers = calloc(64, sizeof(uint64_t));
    if (!s->n_states || !s->masks || !s->cover || !s->coverers) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t j = 0; j < m; j++) {
        PyObject *states =
            PySequence_Fast(PySequence_Fast_GET_ITEM(seq, j), "each action's masks must be a sequence");
        if (!states) {
            Py_DECREF(seq);
            return -1;
        }
        Py_ssize_t ns = PySequence_Fast_GET_SIZE(states);
        s->n_states[j] = (int)ns;
        s->masks[j] = calloc((size_t)(ns ? ns : 1), sizeof(uint64_t));
        if (!s->masks[j]) {
            Py_DECREF(states);
            Py_DECREF(seq);
            PyErr_NoMemory();
            return -1;
        }
        for (Py_ssize_t k = 0; k < ns; k++) {
            if (read_mask(PySequence_Fast_GET_ITEM(states, k), &s->masks[j][k]) < 0) {
                Py_DECREF(states);
                Py_DECREF(seq);
                return -1;
            }
            s->cover[j] |= s->masks[j][k];
        }
        s->total_states += (int)ns;
        if (ns > s->max_states) s->max_states = (int)ns;
        Py_DECREF(states);
    }
    Py_DECREF(seq);
    for (int j = 0; j < s->n_actions; j++) {
        for (uint64_t c = s->cover[j]; c; c &= c - 1) s->coverers[lowest(c)] |= 1ULL << j;
    }
    /* Scratch: every level of the recursion removes an action, so at most m + 2 frames, each
       with its candidates, their kids and a candidate sum's arrays. */
    size_t per_kid = 8 + 8 + 4 + 4 + 8 + 5 * 16;
    size_t frame = (size_t)(m + 1) * (sizeof(Cand) + sizeof(Ranked) + 6 * 16) +
                   (size_t)(s->total_states + 1) * per_kid + (size_t)(s->max_states + 1) * 48;
    s->arena_cap = (size_t)(m + 3) * frame * 2 + 4096;
    s->arena = malloc(s->arena_cap);
    if (!s->arena) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static PyObject *py_search(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *state_masks, *truths_obj, *actions_obj, *observed;
    if (!PyArg_ParseTuple(args, "OOOO", &state_masks, &truths_obj, &actions_obj, &observed)) {
        return NULL;
    }
    Solver solver;
    memset(&solver, 0, sizeof(solver));
    Solver *s = &solver;
    uint64_t truths, actions;
    PyObject *path = NULL, *result = NULL;
    if (setup(s, state_masks) < 0) goto done;
    if (read_mask(truths_obj, &truths) < 0 || read_mask(actions_obj, &actions) < 0) goto done;
    if (s->n_actions < 64 && actions >> s->n_actions) {
        PyErr_SetString(PyExc_ValueError, "actions has bits beyond the actions given");
        goto done;
    }
    int *observed_state = NULL;
    if (observed != Py_None) {
        PyObject *seq = PySequence_Fast(observed, "observed must be a sequence or None");
        if (!seq) goto done;
        if (PySequence_Fast_GET_SIZE(seq) != s->n_actions) {
            Py_DECREF(seq);
            PyErr_SetString(PyExc_ValueError, "observed needs one state index per action");
            goto done;
        }
        observed_state = arena_take(s, sizeof(int) * (size_t)(s->n_actions + 1));
        if (!observed_state) {
            Py_DECREF(seq);
            goto done;
        }
        for (int j = 0; j < s->n_actions; j++) {
            long k = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, j));
            if (k == -1 && PyErr_Occurred()) {
                Py_DECREF(seq);
                goto done;
            }
            observed_state[j] = (int)k;
        }
        Py_DECREF(seq);
    }
    double e = expected(s, truths, actions);
    if (s->failed) goto done;
    path = PyList_New(0);
    if (!path) goto done;
    for (;;) {
        int index = best(s, truths, actions);
        if (s->failed) goto done;
        if (index < 0) break;
        PyObject *item = PyLong_FromLong(index);
        if (!item || PyList_Append(path, item) < 0) {
            Py_XDECREF(item);
            goto done;
        }
        Py_DECREF(item);
        if (!observed_state) break;
        int k = observed_state[index];
        if (k < 0 || k >= s->n_states[index]) {
            PyErr_Format(PyExc_ValueError, "action %d has no observed state", index);
            goto done;
        }
        truths &= ~s->masks[index][k];
        actions &= ~(1ULL << index);
    }
    result = Py_BuildValue("(dN)", e, PyList_AsTuple(path));
done:
    Py_XDECREF(path);
    free_solver(s);
    return result;
}

static PyMethodDef methods[] = {
    {"search", py_search, METH_VARARGS,
     "search(state_masks, truths, actions, observed) -> (expected, path): see search.py."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_fastsearch", "The optimal search, compiled (see search.py).", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__fastsearch(void) { return PyModule_Create(&module); }
