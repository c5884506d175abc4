/* Reach's compiled kernel: the solver's hot path in plain C, called through ctypes.
 *
 * Every function computes what a numpy function of the solver computes (named beside
 * it), on row-major float64 arrays the caller owns; the numpy code is the reference the
 * kernel is tested against to rounding, and the fallback where this library does not
 * load. No function allocates, keeps state or calls anything but libm and, for a time
 * budget, the system's monotonic clock.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(_WIN32)
#define RK_EXPORT __declspec(dllexport)
#include <windows.h>
#else
#define RK_EXPORT __attribute__((visibility("default")))
#include <time.h>
#endif

/* The calling convention's version: the loader refuses a library of another. */
#define RK_ABI 24

/* An aim's goal point closer to its effector's than this leaves the aim undefined: it
 * weighs nothing (solver/goals/aim.py's _TINY). */
#define AIM_TINY 1e-12

/* A row a step meets after a move of at most this share of φ's size is within rounding of φ
 * (solver/optimizer/goldfarb.py's AT_ONCE). */
#define RK_AT_ONCE 1e-15

/* How the descent functions end; solver/kernel/records.py names the same numbers (its
 * StartStatus, SearchStatus and DescentStatus: each member is RK_ and its name here). */
enum { RK_STARTED = 0, RK_NOT_POSITIVE_DEFINITE = 4 }; /* rk_gauss_newton_start */
enum {                                                  /* rk_gauss_newton_search */
       RK_STEP_TAKEN = 0,
       RK_NO_DESCENT = 1,
       RK_BLOCKED_AT_ONCE = 2,
       RK_NO_DECREASE = 3,
       RK_ROW_NOT_A_BOUND = 5
};
enum { RK_GENERAL = -1, RK_GOALS_MET = 0, RK_TIME_SPENT = 1, RK_MET_AT_START = 2 }; /* descent */
enum { RK_SETTLED = 0, RK_UNSETTLED = 1, RK_NOT_RUN = -2 };                         /* rk_settle */

/* Seconds on the system's monotonic clock (from an arbitrary origin). */
static double monotonic_seconds(void) {
#if defined(_WIN32)
    LARGE_INTEGER count, frequency;
    QueryPerformanceCounter(&count);
    QueryPerformanceFrequency(&frequency);
    return (double)count.QuadPart / (double)frequency.QuadPart;
#else
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
#endif
}

RK_EXPORT int32_t rk_abi(void) { return RK_ABI; }

/* out = a · b for 4×4 row-major matrices (out may not alias a or b). */
static void product4(const double *a, const double *b, double *out) {
    for (int i = 0; i < 4; ++i) {
        for (int j = 0; j < 4; ++j) {
            out[4 * i + j] = a[4 * i] * b[j] + a[4 * i + 1] * b[4 + j] +
                             a[4 * i + 2] * b[8 + j] + a[4 * i + 3] * b[12 + j];
        }
    }
}

/* Which unit axis of its frame a is (0, 1, 2 for X, Y, Z; every Euler DOF's), or −1. */
static int unit_axis(const double *a) {
    return a[0] == 1.0 && a[1] == 0.0 && a[2] == 0.0   ? 0
           : a[0] == 0.0 && a[1] == 1.0 && a[2] == 0.0 ? 1
           : a[0] == 0.0 && a[1] == 0.0 && a[2] == 1.0 ? 2
                                                       : -1;
}

/* m ← m · T(θ): a rotation by θ about unit axis a (Rodrigues: I + sinθ K + (1 − cosθ) K²),
 * or a translation by θ along a, in m's frame; along = unit_axis(a). About or along a unit
 * axis of the frame only the columns that move are made: the terms of the general products
 * left out are exact zeros, so they are the general products' to the bit (but for the sign
 * of a zero). */
static void apply_dof(double *m, int rotation, const double *a, int along, double theta) {
    if (!rotation) {
        for (int i = 0; i < 3; ++i) {
            m[4 * i + 3] += theta * (along >= 0 ? m[4 * i + along]
                                                : m[4 * i] * a[0] + m[4 * i + 1] * a[1] +
                                                      m[4 * i + 2] * a[2]);
        }
        return;
    }
    const double s = sin(theta), c = 1.0 - cos(theta);
    const double x = a[0], y = a[1], z = a[2];
    if (along >= 0) {
        const int p = along == 0 ? 1 : (along == 1 ? 2 : 0); /* (p, q) turn as (y, z) about x */
        const int q = along == 0 ? 2 : (along == 1 ? 0 : 1);
        const double kept = 1.0 - c; /* the general r's diagonal across the axis: 1 + c·(−1) */
        for (int i = 0; i < 3; ++i) {
            const double mp = m[4 * i + p], mq = m[4 * i + q];
            m[4 * i + p] = mp * kept + mq * s;
            m[4 * i + q] = mq * kept - mp * s;
        }
        return;
    }
    /* K = [[0, −z, y], [z, 0, −x], [−y, x, 0]]; K² = a aᵀ − |a|² I. */
    const double k[9] = {0.0, -z, y, z, 0.0, -x, -y, x, 0.0};
    double r[9];
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            const double k2 = k[3 * i] * k[j] + k[3 * i + 1] * k[3 + j] + k[3 * i + 2] * k[6 + j];
            r[3 * i + j] = (i == j ? 1.0 : 0.0) + s * k[3 * i + j] + c * k2;
        }
    }
    for (int i = 0; i < 3; ++i) {
        const double m0 = m[4 * i], m1 = m[4 * i + 1], m2 = m[4 * i + 2];
        for (int j = 0; j < 3; ++j) {
            m[4 * i + j] = m0 * r[j] + m1 * r[3 + j] + m2 * r[6 + j];
        }
    }
}

/* rk_frames' step for segment k: its world matrix from its parent's (or the identity
 * after the segments, for a root), and its DOFs' world axes and pivots. */
static void segment_frame(int32_t k, const int32_t *parent, const int32_t *first_dof,
                          const int32_t *count, const double *rest, const uint8_t *rotation,
                          const double *axis, int32_t normalise, const double *theta,
                          double *world, const double *identity, double *dof_axis,
                          double *dof_pivot) {
    double *m = world + 16 * (int64_t)k;
    const double *above = parent[k] < 0 ? identity : world + 16 * (int64_t)parent[k];
    product4(above, rest + 16 * (int64_t)k, m);
    for (int32_t i = 0; i < count[k]; ++i) {
        const int64_t j = (int64_t)first_dof[k] + i;
        const double *a = axis + 3 * j;
        const int along = unit_axis(a);
        apply_dof(m, rotation[j], a, along, theta[j]);
        double *u = dof_axis + 3 * j;
        for (int r = 0; r < 3; ++r) {
            u[r] = along >= 0 ? m[4 * r + along]
                              : m[4 * r] * a[0] + m[4 * r + 1] * a[1] + m[4 * r + 2] * a[2];
            dof_pivot[3 * j + r] = m[4 * r + 3];
        }
        if (normalise && rotation[j]) {
            const double norm = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
            u[0] /= norm;
            u[1] /= norm;
            u[2] /= norm;
        }
    }
}

/* Kinematics.frames and Kinematics.dof_axes in one pass over the segments.
 *
 * Segment k (parents before children; parent[k] = −1 for a root) has the joint transform
 * rest[k] · T(θ_first[k]) ⋯ T(θ_first[k]+count[k]−1). Writes the world matrix of every
 * segment into world[16k…] and the identity after them (the roots' parent), and each
 * DOF's world axis and pivot (the joint frame after its own transform: its axis column
 * and origin); with normalise, rotation axes are scaled to unit length.
 */
RK_EXPORT void rk_frames(int32_t n_segments, const int32_t *parent, const int32_t *first_dof,
                         const int32_t *count, const double *rest, const uint8_t *rotation,
                         const double *axis, int32_t normalise, const double *theta,
                         double *world, double *dof_axis, double *dof_pivot) {
    double *identity = world + 16 * (int64_t)n_segments;
    for (int i = 0; i < 16; ++i) {
        identity[i] = (i % 5 == 0) ? 1.0 : 0.0;
    }
    for (int32_t k = 0; k < n_segments; ++k) {
        segment_frame(k, parent, first_dof, count, rest, rotation, axis, normalise, theta, world,
                      identity, dof_axis, dof_pivot);
    }
}

/* A variable's derivative from the wrench its segment's subtree feels: u · (M − q × F)
 * for a rotation about u through q, u · F for a translation along u. */
static double derivative(const double *total, const double *u, const double *q, int rotation) {
    double load[3] = {total[3], total[4], total[5]};
    if (rotation) {
        load[0] = total[0] - (q[1] * total[5] - q[2] * total[4]);
        load[1] = total[1] - (q[2] * total[3] - q[0] * total[5]);
        load[2] = total[2] - (q[0] * total[4] - q[1] * total[3]);
    }
    return u[0] * load[0] + u[1] * load[1] + u[2] * load[2];
}

/* Each segment's `width` values plus all its descendants', children first (segments
 * come after their parents). */
static void sum_up_tree(int32_t n_segments, const int32_t *parent, int width, double *sums) {
    for (int32_t k = n_segments - 1; k >= 0; --k) {
        if (parent[k] >= 0) {
            double *above = sums + width * (int64_t)parent[k];
            const double *own = sums + width * (int64_t)k;
            for (int i = 0; i < width; ++i) {
                above[i] += own[i];
            }
        }
    }
}

/* Jacobian.factor: J · diag(√weights) over each effector's point (and axes), (n, 3·k),
 * written column by column (out[(3i + c)·n + j]: the Gauss–Newton start reads columns).
 *
 * vectors holds k = blocks·m stacked 3-vectors: the m effector points, then (blocks 3)
 * their x and y axes; vector i belongs to effector i mod m and weighs weights[i]. Column
 * 3i + c of variable j is moves[j, i mod m] · weights[i] · (u_j × (r_i − q_j))_c for a
 * point and (u_j × x_i)_c for an axis, when j is a rotation; u_j for a point and 0 for an
 * axis when j is a translation.
 */
RK_EXPORT void rk_factor(int32_t n, int32_t m, int32_t blocks, const double *vectors,
                         const double *moves, const double *weights, const double *axes,
                         const double *pivots, const uint8_t *rotation, double *out) {
    const int64_t k = (int64_t)blocks * m;
    for (int64_t i = 0; i < k; ++i) {
        double *c0 = out + 3 * i * n, *c1 = c0 + n, *c2 = c1 + n;
        const double *v = vectors + 3 * i;
        for (int32_t j = 0; j < n; ++j) {
            const double *u = axes + 3 * j, *q = pivots + 3 * j;
            const double scale = moves[(int64_t)j * m + i % m] * weights[i];
            if (scale == 0.0) {
                c0[j] = c1[j] = c2[j] = 0.0;
                continue;
            }
            if (!rotation[j]) {
                const double shift = i < m ? scale : 0.0;
                c0[j] = shift * u[0];
                c1[j] = shift * u[1];
                c2[j] = shift * u[2];
                continue;
            }
            double d[3] = {v[0], v[1], v[2]};
            if (i < m) {
                d[0] -= q[0];
                d[1] -= q[1];
                d[2] -= q[2];
            }
            c0[j] = scale * (u[1] * d[2] - u[2] * d[1]);
            c1[j] = scale * (u[2] * d[0] - u[0] * d[2]);
            c2[j] = scale * (u[0] * d[1] - u[1] * d[0]);
        }
    }
}

static void gradient_tree(int32_t n_segments, const int32_t *parent, int32_t n,
                          const int32_t *variable_segment, int32_t m, const int32_t *part_segment,
                          const double *points, const double *force, const double *torque,
                          const double *coefficient, const double *axes, const double *pivots,
                          const uint8_t *rotation, double *sums, double *out) {
    for (int64_t i = 0; i < 6 * (int64_t)n_segments; ++i) {
        sums[i] = 0.0;
    }
    for (int32_t e = 0; e < m; ++e) {
        const double *r = points + 3 * e, *f = force + 3 * e;
        double w[6] = {r[1] * f[2] - r[2] * f[1], r[2] * f[0] - r[0] * f[2],
                       r[0] * f[1] - r[1] * f[0], f[0], f[1], f[2]};
        if (torque != 0) {
            w[0] += torque[3 * e];
            w[1] += torque[3 * e + 1];
            w[2] += torque[3 * e + 2];
        }
        double *s = sums + 6 * (int64_t)part_segment[e];
        for (int i = 0; i < 6; ++i) {
            s[i] += coefficient[e] * w[i];
        }
    }
    sum_up_tree(n_segments, parent, 6, sums);
    for (int32_t j = 0; j < n; ++j) {
        const double *total = sums + 6 * (int64_t)variable_segment[j];
        out[j] = derivative(total, axes + 3 * j, pivots + 3 * j, rotation[j]);
    }
}

/* Jacobian.gradient: Jᵀ of the parts' weighted wrenches, in time linear in the tree.
 *
 * Part e's wrench is coefficient[e] · (r_e × f_e + τ_e, f_e) (τ absent when torque is
 * NULL). Variable j moves part e exactly when j's segment is e's segment or one of its
 * ancestors, so the wrench a variable feels is the sum over its segment's subtree:
 * every part's wrench is added to its segment, then each segment's sum to its parent's,
 * children first (segments come after their parents). sums is scratch of 6·n_segments
 * doubles.
 */
RK_EXPORT void rk_gradient_tree(int32_t n_segments, const int32_t *parent, int32_t n,
                                const int32_t *variable_segment, int32_t m,
                                const int32_t *part_segment, const double *points,
                                const double *force, const double *torque,
                                const double *coefficient, const double *axes,
                                const double *pivots, const uint8_t *rotation, double *sums,
                                double *out) {
    gradient_tree(n_segments, parent, n, variable_segment, m, part_segment, points, force,
                  torque, coefficient, axes, pivots, rotation, sums, out);
}

/* numpy's sum of a contiguous float64 vector (pairwise summation, eight partial sums in
 * a block of up to 128), so that a sum over many goals rounds as numpy's does. */
static double numpy_sum(int64_t n, const double *a) {
    if (n < 8) {
        double sum = 0.0;
        for (int64_t i = 0; i < n; ++i) {
            sum += a[i];
        }
        return sum;
    }
    if (n <= 128) {
        double r[8];
        for (int l = 0; l < 8; ++l) {
            r[l] = a[l];
        }
        int64_t i = 8;
        for (; i < n - n % 8; i += 8) {
            for (int l = 0; l < 8; ++l) {
                r[l] += a[i + l];
            }
        }
        double sum = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; ++i) {
            sum += a[i];
        }
        return sum;
    }
    int64_t half = n / 2;
    half -= half % 8;
    return numpy_sum(half, a) + numpy_sum(n - half, a + half);
}

/* A problem whose every goal is a sum of squared distances of the effector's point and
 * axes from their goals (Position, Orientation, PositionOrientation) or a plane's or
 * half-space's on its point (rk_objective's faces), its m parts points fixed in segments
 * and its leaves the effectors the goals are on (the parts, or centres of mass of them):
 * what Problem.evaluate_variables reads besides θ, the goals and their weights.
 * The tree is rk_frames' and the variables' layout rk_gradient_tree's; world (16·(segments
 * + 1)), dof_axis and dof_pivot (3·DOFs each), sums (6·segments), force and torque (3m
 * each) and weighted (m) are scratch the caller owns, unit m ones. */
typedef struct {
    int32_t n_segments;
    const int32_t *parent;
    const int32_t *first_dof;
    const int32_t *count;
    const double *rest;
    const uint8_t *rotation;
    const double *axis;
    int32_t normalise;
    int32_t m;
    const int32_t *part_segment;
    const double *local;
    int32_t scaled;
    int32_t n;
    const int32_t *variables;
    const int32_t *variable_segment;
    const uint8_t *variable_rotation;
    double *world;
    double *dof_axis;
    double *dof_pivot;
    double *sums;
    double *force;
    double *weighted;
    double *torque;
    const double *unit;
    /* The goals' effectors, the leaves: the m parts themselves (shares NULL), or where some
     * leaf is a centre of mass, the mean Σ sₖ rₖ of its parts (Parts.sums: shares, leaves
     * × m) and a plain effector its first part's point and axes (first, massed: leaves
     * each). extra is scratch of 15m + 7·leaves doubles. */
    int32_t leaves;
    const double *shares;
    const int32_t *first;
    const uint8_t *massed;
    double *extra;
    /* The frames of the segments no variable moves, kept between evaluations: moving (the
     * segments that move with some variable, parents before children: moving_count),
     * fixed (the DOFs that are no variable: fixed_count), cached (the θ, n_dofs, the
     * frames in world, dof_axis and dof_pivot were last made at in full) and key (the
     * generation of the plan that made them, 0 none), scratch shared with the plans that
     * share world; generation this plan's, unique to its tree and rests. */
    int32_t moving_count;
    const int32_t *moving;
    int32_t fixed_count;
    const int32_t *fixed;
    double *cached;
    int64_t *key;
    int64_t generation;
} Objective;

/* rk_frames of o's tree at theta into o's scratch. Where this plan's last full pass made
 * the frames and no DOF a variable leaves still has its value then (to the bit), the frames
 * of the segments no variable moves are as that pass left them: only the moving segments
 * are made again, the same products in the same order, so the frames are rk_frames' to the
 * bit. A drag's or a descent's evaluations differ in the variables alone. */
static void objective_frames(const Objective *o, const double *theta) {
    if (*o->key == o->generation) {
        int32_t i = 0;
        for (; i < o->fixed_count; ++i) {
            const int32_t j = o->fixed[i];
            if (memcmp(theta + j, o->cached + j, sizeof(double)) != 0) {
                break;
            }
        }
        if (i == o->fixed_count) {
            const double *identity = o->world + 16 * (int64_t)o->n_segments;
            for (int32_t t = 0; t < o->moving_count; ++t) {
                segment_frame(o->moving[t], o->parent, o->first_dof, o->count, o->rest,
                              o->rotation, o->axis, o->normalise, theta, o->world, identity,
                              o->dof_axis, o->dof_pivot);
            }
            return;
        }
    }
    rk_frames(o->n_segments, o->parent, o->first_dof, o->count, o->rest, o->rotation, o->axis,
              o->normalise, theta, o->world, o->dof_axis, o->dof_pivot);
    for (int32_t i = 0; i < o->fixed_count; ++i) {
        o->cached[o->fixed[i]] = theta[o->fixed[i]];
    }
    *o->key = o->generation;
}

/* Problem.evaluate_variables of an Objective: G_all = Σ_e Σ_b w_be ‖v_be − g_be‖² and its
 * gradient over the variables, from the pose θ (all DOFs), the goals' vectors g and their
 * weights w, block b of each: blocks 1 holds the effectors' points only (g (m, 3), w (m):
 * Position goals), blocks 3 their points, then x axes, then y axes (g (3m, 3), w (3m): a
 * goal's weight in G times its goal's coefficient of each, 0 where it ignores one). Writes
 * into out the pose the solver keeps with it: the parts' points, x and y axes (m, 3 each;
 * Parts.states: the effector's frame in the segment's, local (m, 4, 3), carried by the
 * segment's world matrix, axes made unit when a rest scales), the variables' axes and
 * pivots (n, 3 each), then the gradient (n). An axis v's derivative by a rotation about
 * u is u × v, so its goal's gradient 2w(v − g) adds the torque v × 2w(v − g). With faces
 * (leaves × 4, see leaf_objective) or centres of mass (shares), leaf_objective's, whose out
 * holds the leaves' states (m is then the leaves') and ends with the parts' points. */
/* Parts.states of part k after rk_frames: its point, x and y axes into column[0..2], its
 * frame in its segment's (local) carried by the segment's world matrix, the axes made unit
 * when a rest scales. */
static void part_state(const Objective *o, int64_t k, double *column[3]) {
    const double *w = o->world + 16 * (int64_t)o->part_segment[k];
    const double *l = o->local + 12 * k;
    for (int c = 0; c < 3; ++c) {
        for (int i = 0; i < 3; ++i) {
            column[c][i] = w[4 * i] * l[c] + w[4 * i + 1] * l[3 + c] + w[4 * i + 2] * l[6 + c] +
                           w[4 * i + 3] * l[9 + c];
        }
    }
    if (o->scaled) {
        for (int c = 1; c < 3; ++c) {
            double *v = column[c];
            const double norm = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
            v[0] /= norm;
            v[1] /= norm;
            v[2] /= norm;
        }
    }
}

static double leaf_objective(const Objective *o, int32_t blocks, const double *goal,
                             const double *weight, const double *faces, double *out);

RK_EXPORT double rk_objective(const Objective *o, const double *theta, int32_t blocks,
                              const double *goal, const double *weight, const double *faces,
                              double *out) {
    if (o->shares != 0 || faces != 0) {
        objective_frames(o, theta);
        return leaf_objective(o, blocks, goal, weight, faces, out);
    }
    const int32_t m = o->m, n = o->n;
    double *points = out, *x = out + 3 * (int64_t)m, *y = out + 6 * (int64_t)m;
    double *axes = out + 9 * (int64_t)m, *pivots = axes + 3 * (int64_t)n;
    double *gradient = pivots + 3 * (int64_t)n;
    objective_frames(o, theta);
    for (int32_t e = 0; e < m; ++e) {
        double *column[3] = {points + 3 * e, x + 3 * e, y + 3 * e};
        part_state(o, e, column);
        const double *p = goal + 3 * e;
        const double d[3] = {points[3 * e] - p[0], points[3 * e + 1] - p[1],
                             points[3 * e + 2] - p[2]};
        if (blocks == 1) {
            o->weighted[e] = weight[e] * (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            for (int i = 0; i < 3; ++i) {
                o->force[3 * e + i] = 2.0 * d[i];
            }
            continue;
        }
        double total = weight[e] * (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        double *f = o->force + 3 * e, *t = o->torque + 3 * e;
        for (int i = 0; i < 3; ++i) {
            f[i] = 2.0 * weight[e] * d[i];
            t[i] = 0.0;
        }
        for (int b = 1; b < 3; ++b) {
            const double c = weight[(int64_t)b * m + e];
            const double *v = column[b], *g = goal + 3 * ((int64_t)b * m + e);
            const double a[3] = {v[0] - g[0], v[1] - g[1], v[2] - g[2]};
            total += c * (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
            t[0] += 2.0 * c * (v[1] * a[2] - v[2] * a[1]);
            t[1] += 2.0 * c * (v[2] * a[0] - v[0] * a[2]);
            t[2] += 2.0 * c * (v[0] * a[1] - v[1] * a[0]);
        }
        o->weighted[e] = total;
    }
    for (int32_t j = 0; j < n; ++j) {
        const int64_t v = o->variables[j];
        for (int i = 0; i < 3; ++i) {
            axes[3 * j + i] = o->dof_axis[3 * v + i];
            pivots[3 * j + i] = o->dof_pivot[3 * v + i];
        }
    }
    if (blocks == 1) {
        gradient_tree(o->n_segments, o->parent, n, o->variable_segment, m, o->part_segment,
                      points, o->force, 0, weight, axes, pivots, o->variable_rotation, o->sums,
                      gradient);
    } else {
        gradient_tree(o->n_segments, o->parent, n, o->variable_segment, m, o->part_segment,
                      points, o->force, o->torque, o->unit, axes, pivots,
                      o->variable_rotation, o->sums, gradient);
    }
    return numpy_sum(m, o->weighted);
}

/* rk_objective where a leaf is a centre of mass or a goal is a plane's (Plane, HalfSpace),
 * after rk_frames: G_all = Σ_e w_e P_e and its gradient. faces (leaves × 4, or NULL: every
 * goal a squared distance) holds each leaf's plane normal ν and its kind: 0 a squared
 * distance (as rk_objective's), 1 a plane, P = ((r − p)·ν)², 2 a half-space, P = min(0,
 * (r − p)·ν)², p the goal's point (its first vector). Each leaf's weighted force goes to
 * its parts, times their shares (Parts.spread), and a plain leaf's torque to its part; the
 * gradient is then the parts' (rk_gradient_tree). out as rk_objective's, for the leaves,
 * then the parts' points (m, 3). */
static double leaf_objective(const Objective *o, int32_t blocks, const double *goal,
                             const double *weight, const double *faces, double *out) {
    const int32_t m = o->m, n = o->n, leaves = o->leaves;
    double *points = out, *x = out + 3 * (int64_t)leaves, *y = out + 6 * (int64_t)leaves;
    double *axes = out + 9 * (int64_t)leaves, *pivots = axes + 3 * (int64_t)n;
    double *gradient = pivots + 3 * (int64_t)n, *at = gradient + n;
    double *part_x = o->extra, *part_y = part_x + 3 * (int64_t)m;
    double *part_force = part_y + 3 * (int64_t)m, *part_torque = part_force + 3 * (int64_t)m;
    double *force = part_torque + 3 * (int64_t)m, *torque = force + 3 * (int64_t)leaves;
    double *weighted = torque + 3 * (int64_t)leaves;
    for (int32_t k = 0; k < m; ++k) {
        double *column[3] = {at + 3 * k, part_x + 3 * k, part_y + 3 * k};
        part_state(o, k, column);
        for (int i = 0; i < 3; ++i) {
            part_force[3 * k + i] = part_torque[3 * k + i] = 0.0;
        }
    }
    for (int32_t e = 0; e < leaves; ++e) {
        double *p = points + 3 * e, *xe = x + 3 * e, *ye = y + 3 * e;
        if (o->shares != 0 && o->massed[e]) { /* Σ sₖ rₖ, the world's axes */
            const double *s = o->shares + (int64_t)m * e;
            p[0] = p[1] = p[2] = 0.0;
            for (int32_t k = 0; k < m; ++k) {
                if (s[k] != 0.0) {
                    p[0] += s[k] * at[3 * k];
                    p[1] += s[k] * at[3 * k + 1];
                    p[2] += s[k] * at[3 * k + 2];
                }
            }
            xe[0] = 1.0, xe[1] = 0.0, xe[2] = 0.0;
            ye[0] = 0.0, ye[1] = 1.0, ye[2] = 0.0;
        } else {
            const int64_t k = o->shares != 0 ? o->first[e] : e;
            memcpy(p, at + 3 * k, sizeof(double) * 3);
            memcpy(xe, part_x + 3 * k, sizeof(double) * 3);
            memcpy(ye, part_y + 3 * k, sizeof(double) * 3);
        }
        const double *g = goal + 3 * e;
        const double d[3] = {p[0] - g[0], p[1] - g[1], p[2] - g[2]};
        double *f = force + 3 * e, *t = torque + 3 * e;
        const int kind = faces != 0 ? (int)faces[4 * e + 3] : 0;
        t[0] = t[1] = t[2] = 0.0;
        if (kind == 3) { /* Aim: c‖w − y‖², w the unit way from the point to the goal's */
            const double c = weight[2 * (int64_t)leaves + e];
            const double to[3] = {g[0] - p[0], g[1] - p[1], g[2] - p[2]};
            const double distance = sqrt(to[0] * to[0] + to[1] * to[1] + to[2] * to[2]);
            weighted[e] = 0.0;
            f[0] = f[1] = f[2] = 0.0;
            if (distance > AIM_TINY) {
                double w[3], a[3];
                for (int i = 0; i < 3; ++i) {
                    w[i] = to[i] / distance;
                    a[i] = w[i] - ye[i];
                }
                const double along = w[0] * a[0] + w[1] * a[1] + w[2] * a[2];
                const double pull = (-2.0 * c) / distance;
                weighted[e] = c * (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
                for (int i = 0; i < 3; ++i) {
                    f[i] = pull * (a[i] - along * w[i]);
                }
                const double s[3] = {-2.0 * c * a[0], -2.0 * c * a[1], -2.0 * c * a[2]};
                t[0] = ye[1] * s[2] - ye[2] * s[1];
                t[1] = ye[2] * s[0] - ye[0] * s[2];
                t[2] = ye[0] * s[1] - ye[1] * s[0];
            }
            continue;
        }
        if (kind != 0) {
            const double *normal = faces + 4 * e;
            double height = d[0] * normal[0] + d[1] * normal[1] + d[2] * normal[2];
            if (kind == 2 && height > 0.0) {
                height = 0.0;
            }
            weighted[e] = weight[e] * (height * height);
            for (int i = 0; i < 3; ++i) {
                f[i] = weight[e] * ((2.0 * height) * normal[i]);
            }
            continue;
        }
        double total = weight[e] * (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        for (int i = 0; i < 3; ++i) {
            f[i] = 2.0 * weight[e] * d[i];
        }
        for (int b = 1; b < blocks; ++b) {
            const double c = weight[(int64_t)b * leaves + e];
            const double *v = b == 1 ? xe : ye, *h = goal + 3 * ((int64_t)b * leaves + e);
            const double a[3] = {v[0] - h[0], v[1] - h[1], v[2] - h[2]};
            total += c * (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
            t[0] += 2.0 * c * (v[1] * a[2] - v[2] * a[1]);
            t[1] += 2.0 * c * (v[2] * a[0] - v[0] * a[2]);
            t[2] += 2.0 * c * (v[0] * a[1] - v[1] * a[0]);
        }
        weighted[e] = total;
    }
    for (int32_t e = 0; e < leaves; ++e) { /* Parts.spread */
        const double *f = force + 3 * e;
        if (o->shares != 0 && o->massed[e]) {
            const double *s = o->shares + (int64_t)m * e;
            for (int32_t k = 0; k < m; ++k) {
                if (s[k] != 0.0) {
                    for (int i = 0; i < 3; ++i) {
                        part_force[3 * k + i] += s[k] * f[i];
                    }
                }
            }
            continue;
        }
        const int64_t k = o->shares != 0 ? o->first[e] : e;
        for (int i = 0; i < 3; ++i) {
            part_force[3 * k + i] += f[i];
            part_torque[3 * k + i] += torque[3 * e + i];
        }
    }
    for (int32_t j = 0; j < n; ++j) {
        const int64_t v = o->variables[j];
        for (int i = 0; i < 3; ++i) {
            axes[3 * j + i] = o->dof_axis[3 * v + i];
            pivots[3 * j + i] = o->dof_pivot[3 * v + i];
        }
    }
    gradient_tree(o->n_segments, o->parent, n, o->variable_segment, m, o->part_segment, at,
                  part_force, part_torque, o->unit, axes, pivots, o->variable_rotation,
                  o->sums, gradient);
    return numpy_sum(leaves, weighted);
}

static void cross3(const double *a, const double *b, double *out) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static double dot3(const double *a, const double *b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* twist += v · (u, q × u) for a rotation about u through q, v · (0, u) for a translation. */
static void add_twist(double *twist, const double *u, const double *q, int rotation, double v) {
    if (rotation) {
        double shift[3];
        cross3(q, u, shift);
        for (int i = 0; i < 3; ++i) {
            twist[i] += v * u[i];
            twist[3 + i] += v * shift[i];
        }
    } else {
        for (int i = 0; i < 3; ++i) {
            twist[3 + i] += v * u[i];
        }
    }
}

/* The parameters of one pose's ∇²G, first in rk_hessian_tree and rk_newton_cg. */
#define POSE_HESSIAN                                                                          \
    int32_t n_segments, const int32_t *parent, int32_t n, const int32_t *variable_segment,   \
        int32_t m, const int32_t *part_segment, const uint8_t *rotation, const double *axes, \
        const double *pivots, const double *points, const double *x, const double *y,        \
        const double *d_point, const double *d_x, const double *d_y,                         \
        const double *coefficient, const double *hessian
#define POSE_HESSIAN_ARGUMENTS                                                                  \
    n_segments, parent, n, variable_segment, m, part_segment, rotation, axes, pivots, points, x, \
        y, d_point, d_x, d_y, coefficient, hessian

/* Jacobian.hessian_product: ∇²G · direction over the variables, in time linear in the tree.
 *
 * Variable j's twist is (u_j, q_j × u_j) for a rotation, (0, u_j) for a translation;
 * moving at direction[j] it turns every frame below by Ω and shifts it by Λ (ṙ = Ω × r +
 * Λ). Each segment's (Ω, Λ) sums its ancestors' variables and its own ("after"); each
 * variable feels its parent segment's and its own segment's earlier variables ("before",
 * variables of one segment are consecutive). Part e's point, axes and goal gradients
 * (d_point, d_x, d_y) change with ṙ, ẋ = Ω × x, ẏ = Ω × y through its goal's Hessian over
 * (r, x, y) (hessian, 81 per part); its wrench W = c (r × f + x × d_x + y × d_y, f) and
 * the change Ẇ are summed up the tree as in rk_gradient_tree. The product is then
 * u̇ · (M − q × F) + u · (Ṁ − q̇ × F − q × Ḟ) for a rotation, u̇ · F + u · Ḟ for a
 * translation. scratch holds 24 · n_segments doubles.
 */
static void tree_product(POSE_HESSIAN, const double *direction, double *scratch, double *out) {
    const int64_t s6 = 6 * (int64_t)n_segments;
    double *after = scratch, *running = scratch + s6, *sums = scratch + 2 * s6;
    for (int64_t i = 0; i < 4 * s6; ++i) {
        scratch[i] = 0.0;
    }
    /* each segment's own variables' twist, then summed from the root down */
    for (int32_t j = 0; j < n; ++j) {
        const double *u = axes + 3 * j, *q = pivots + 3 * j;
        add_twist(after + 6 * (int64_t)variable_segment[j], u, q, rotation[j], direction[j]);
    }
    for (int32_t k = 0; k < n_segments; ++k) {
        if (parent[k] >= 0) {
            const double *above = after + 6 * (int64_t)parent[k];
            double *a = after + 6 * (int64_t)k;
            for (int i = 0; i < 6; ++i) {
                a[i] += above[i];
            }
        }
    }
    /* each part's wrench and its change, summed up the tree (children first) */
    for (int32_t e = 0; e < m; ++e) {
        const double *t = after + 6 * (int64_t)part_segment[e];
        const double *r = points + 3 * e, *xe = x + 3 * e, *ye = y + 3 * e;
        const double *f = d_point + 3 * e, *gx = d_x + 3 * e, *gy = d_y + 3 * e;
        double state[9], change[9], w[12], tmp[3], tmp2[3];
        cross3(t, r, state);
        for (int i = 0; i < 3; ++i) {
            state[i] += t[3 + i];
        }
        cross3(t, xe, state + 3);
        cross3(t, ye, state + 6);
        const double *h = hessian + 81 * (int64_t)e;
        for (int i = 0; i < 9; ++i) {
            double sum = 0.0;
            for (int l = 0; l < 9; ++l) {
                sum += h[9 * i + l] * state[l];
            }
            change[i] = sum;
        }
        /* W = (r × f + x × d_x + y × d_y, f) */
        cross3(r, f, w);
        cross3(xe, gx, tmp);
        cross3(ye, gy, tmp2);
        for (int i = 0; i < 3; ++i) {
            w[i] += tmp[i] + tmp2[i];
            w[3 + i] = f[i];
        }
        /* Ẇ = (ṙ × f + r × ḟ + ẋ × d_x + x × ḋ_x + ẏ × d_y + y × ḋ_y, ḟ) */
        cross3(state, f, w + 6);
        cross3(r, change, tmp);
        for (int i = 0; i < 3; ++i) {
            w[6 + i] += tmp[i];
        }
        cross3(state + 3, gx, tmp);
        cross3(xe, change + 3, tmp2);
        for (int i = 0; i < 3; ++i) {
            w[6 + i] += tmp[i] + tmp2[i];
        }
        cross3(state + 6, gy, tmp);
        cross3(ye, change + 6, tmp2);
        for (int i = 0; i < 3; ++i) {
            w[6 + i] += tmp[i] + tmp2[i];
            w[9 + i] = change[i];
        }
        double *sm = sums + 12 * (int64_t)part_segment[e];
        for (int i = 0; i < 12; ++i) {
            sm[i] += coefficient[e] * w[i];
        }
    }
    sum_up_tree(n_segments, parent, 12, sums);
    /* each variable: the twist above it, then its product */
    for (int32_t j = 0; j < n; ++j) {
        const int32_t k = variable_segment[j];
        const double *u = axes + 3 * j, *q = pivots + 3 * j;
        double *own = running + 6 * (int64_t)k;
        double before[6];
        for (int i = 0; i < 6; ++i) {
            before[i] = (parent[k] >= 0 ? after[6 * (int64_t)parent[k] + i] : 0.0) + own[i];
        }
        const double *total = sums + 12 * (int64_t)k;
        double d_u[3], d_q[3], load[3], d_load[3], tmp[3];
        cross3(before, u, d_u);
        cross3(before, q, d_q);
        for (int i = 0; i < 3; ++i) {
            d_q[i] += before[3 + i];
        }
        if (rotation[j]) {
            cross3(q, total + 3, tmp);
            for (int i = 0; i < 3; ++i) {
                load[i] = total[i] - tmp[i];
            }
            cross3(d_q, total + 3, tmp);
            for (int i = 0; i < 3; ++i) {
                d_load[i] = total[6 + i] - tmp[i];
            }
            cross3(q, total + 9, tmp);
            for (int i = 0; i < 3; ++i) {
                d_load[i] -= tmp[i];
            }
        } else {
            for (int i = 0; i < 3; ++i) {
                load[i] = total[3 + i];
                d_load[i] = total[9 + i];
            }
        }
        out[j] = dot3(d_u, load) + dot3(u, d_load);
        add_twist(own, u, q, rotation[j], direction[j]);
    }
}

/* Jacobian.hessian_product (see tree_product). */
RK_EXPORT void rk_hessian_tree(POSE_HESSIAN, const double *direction, double *scratch,
                               double *out) {
    tree_product(POSE_HESSIAN_ARGUMENTS, direction, scratch, out);
}

/* [*lo, *hi): where the n entries of v are not zero (an empty span where all are). */
static void support(int32_t n, const double *v, int32_t *lo, int32_t *hi) {
    int32_t a = 0, b = n;
    while (a < n && v[a] == 0.0) {
        ++a;
    }
    while (b > a && v[b - 1] == 0.0) {
        --b;
    }
    *lo = a;
    *hi = b;
}

/* a · b where every product a[i] b[i] outside [lo, hi) is zero, in eight interleaved
 * partial sums (one running sum waits on each addition, which makes the long vectors of a
 * long chain about four times slower). The same bits for any such span: the partial sums
 * take the same products in the same blocks of eight, and leave out blocks and tail entries
 * that only add a zero (a partial sum that starts at +0 is never −0, and x + ±0 is x). */
static double dot_within(int32_t n, const double *a, const double *b, int32_t lo, int32_t hi) {
    if (lo >= hi) {
        return 0.0;
    }
    const int32_t body = n - n % 8;
    double part[8] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    const int32_t end = hi < body ? hi + (8 - hi % 8) % 8 : body;
    for (int32_t i = lo - lo % 8; i + 8 <= end; i += 8) {
        for (int l = 0; l < 8; ++l) {
            part[l] += a[i + l] * b[i + l];
        }
    }
    double sum = ((part[0] + part[1]) + (part[2] + part[3])) +
                 ((part[4] + part[5]) + (part[6] + part[7]));
    for (int32_t i = lo > body ? lo : body; i < hi; ++i) {
        sum += a[i] * b[i];
    }
    return sum;
}

/* a · b over all n entries. */
static double dot(int32_t n, const double *a, const double *b) {
    return dot_within(n, a, b, 0, n);
}

/* S + μ I = L Lᵀ for S (p, p) symmetric, its lower triangle read and L written over it, row
 * by row: L's row i from S's row i and L's rows above it. Returns 0, or −1 where S + μ I is
 * not positive definite to rounding (or holds NaN). */
static int32_t cholesky(int32_t p, double *s, double mu) {
    for (int32_t i = 0; i < p; ++i) {
        for (int32_t j = 0; j <= i; ++j) {
            double sum = s[(int64_t)p * i + j] + (i == j ? mu : 0.0);
            for (int32_t l = 0; l < j; ++l) {
                sum -= s[(int64_t)p * i + l] * s[(int64_t)p * j + l];
            }
            if (i == j) {
                if (!(sum > 0.0)) {
                    return -1;
                }
                s[(int64_t)p * i + i] = sqrt(sum);
            } else {
                s[(int64_t)p * i + j] = sum / s[(int64_t)p * j + j];
            }
        }
    }
    return 0;
}

/* v ← v less its part along each of the e orthonormal rows (e rows of n). */
static void take_off(int32_t n, int32_t e, const double *rows, double *v) {
    for (int32_t l = 0; l < e; ++l) {
        const double *row = rows + (int64_t)n * l;
        const double along = dot(n, row, v);
        for (int32_t j = 0; j < n; ++j) {
            v[j] -= along * row[j];
        }
    }
}

/* metric._woodbury_start's factorisation, for F (n, k) given by its columns (k rows of n).
 *
 * Writes (PF)ᵀ into projected (k rows of n): each column of F less its part in the span of
 * the q orthonormal rows of basis, or, given bounds (q variables), with those variables
 * zeroed and then, given e equality rows too (orthonormal, none on a bound's variable),
 * less its part in their span. Then S = (PF)ᵀ PF + μ I with μ = max(relative · the largest
 * diagonal entry of P F Fᵀ P, absolute · |value|, 1e-12) (metric.gauss_newton_damping), its
 * Cholesky factor S = L Lᵀ, and turn (k, k) = L⁻¹ with its upper triangle zero. scratch
 * holds n + k² doubles. Returns μ, or −1 where S is not positive definite to rounding. */
static double woodbury(int32_t n, int32_t k, int32_t q, const double *columns,
                       const int32_t *bounds, const double *basis, int32_t e,
                       const double *equalities, double *projected, double relative,
                       double absolute, double value, double *turn, double *scratch) {
    double *diagonal = scratch, *chol = scratch + n;
    for (int32_t c = 0; c < k; ++c) {
        double *f = projected + (int64_t)n * c;
        const double *column = columns + (int64_t)n * c;
        for (int32_t j = 0; j < n; ++j) {
            f[j] = column[j];
        }
        if (bounds) {
            for (int32_t l = 0; l < q; ++l) {
                f[bounds[l]] = 0.0;
            }
            take_off(n, e, equalities, f); /* rows apart from the bounds' variables */
        } else {
            for (int32_t l = 0; l < q; ++l) {
                const double *row = basis + (int64_t)n * l;
                const double along = dot(n, row, column);
                for (int32_t j = 0; j < n; ++j) {
                    f[j] -= along * row[j];
                }
            }
        }
    }
    for (int32_t j = 0; j < n; ++j) {
        diagonal[j] = 0.0;
    }
    for (int32_t c = 0; c < k; ++c) {
        const double *f = projected + (int64_t)n * c;
        for (int32_t j = 0; j < n; ++j) {
            diagonal[j] += f[j] * f[j];
        }
    }
    double largest = 0.0;
    for (int32_t j = 0; j < n; ++j) {
        largest = diagonal[j] > largest ? diagonal[j] : largest;
    }
    double damping = relative * largest;
    const double floor = absolute * fabs(value);
    damping = floor > damping ? floor : damping;
    damping = 1e-12 > damping ? 1e-12 : damping;
    for (int32_t i = 0; i < k; ++i) { /* S's lower triangle, then S + μ I = L Lᵀ */
        const double *fi = projected + (int64_t)n * i;
        for (int32_t j = 0; j <= i; ++j) {
            chol[(int64_t)k * i + j] = dot(n, fi, projected + (int64_t)n * j);
        }
    }
    if (cholesky(k, chol, damping) != 0) {
        return -1.0;
    }
    /* L⁻¹ by forward substitution, column by column of the identity. */
    for (int32_t i = 0; i < k; ++i) {
        double *row = turn + (int64_t)k * i;
        const double *li = chol + (int64_t)k * i;
        for (int32_t j = 0; j < k; ++j) {
            if (j > i) {
                row[j] = 0.0;
                continue;
            }
            double sum = i == j ? 1.0 : 0.0;
            for (int32_t l = j; l < i; ++l) {
                sum -= li[l] * turn[(int64_t)k * l + j];
            }
            row[j] = sum / li[i];
        }
    }
    return damping;
}

/* woodbury with the basis in rows[0..q) and (PF)ᵀ written into rows[q..q + k). */
RK_EXPORT double rk_woodbury_start(int32_t n, int32_t k, int32_t q, const double *columns,
                                   const int32_t *bounds, double *rows, double relative,
                                   double absolute, double value, double *turn,
                                   double *scratch) {
    return woodbury(n, k, q, columns, bounds, rows, 0, 0, rows + (int64_t)n * q, relative,
                    absolute, value, turn, scratch);
}

/* v ← P v: the variables held by the active bounds (held[j] ≠ 0) zeroed; NULL holds none. */
static void hold(int32_t n, const uint8_t *held, double *v) {
    if (held) {
        for (int32_t j = 0; j < n; ++j) {
            if (held[j]) {
                v[j] = 0.0;
            }
        }
    }
}

/* v[0:p] ← T v[0:p], or Tᵀ v[0:p] when transposed, for T (p, p) lower triangular (its
 * upper triangle is not read); tmp holds p doubles. */
static void turn_block(int32_t p, const double *turn, int transposed, double *v, double *tmp) {
    if (transposed) { /* row l of T adds v[l] times itself: contiguous reads */
        for (int32_t i = 0; i < p; ++i) {
            tmp[i] = 0.0;
        }
        for (int32_t l = 0; l < p; ++l) {
            const double *row = turn + (int64_t)p * l;
            const double w = v[l];
            for (int32_t i = 0; i <= l; ++i) {
                tmp[i] += w * row[i];
            }
        }
    } else {
        for (int32_t i = 0; i < p; ++i) {
            tmp[i] = dot(i + 1, turn + (int64_t)p * i, v);
        }
    }
    for (int32_t i = 0; i < p; ++i) {
        v[i] = tmp[i];
    }
}

/* H as Metric keeps it: c I + U M Uᵀ with Uᵀ = K R, from the rows R (r, n), the core M
 * (r, r) and a lower-triangular turn T (p, p) of rows [s, s + p) (p = 0: none), K the
 * identity but for T;
 * or dense (n, n) when dense is not NULL. */
typedef struct {
    const double *dense;
    double c;
    int32_t r;
    const double *rows;
    const double *core;
    int32_t s;
    int32_t p;
    const double *turn;
} Metric;

/* Metric.__matmul__: out = H v; t holds 3r doubles. */
static void precondition(int32_t n, const Metric *h, const double *v, double *t, double *out) {
    const double *dense = h->dense, *rows = h->rows, *core = h->core;
    const double c = h->c;
    const int32_t r = h->r;
    if (dense) {
        for (int32_t i = 0; i < n; ++i) {
            out[i] = dot(n, dense + (int64_t)n * i, v);
        }
        return;
    }
    for (int32_t i = 0; i < n; ++i) {
        out[i] = c * v[i];
    }
    int32_t k = 0;
    for (; k + 4 <= r; k += 4) { /* four rows a pass: each load of v serves four sums */
        const double *a = rows + (int64_t)n * k, *b = a + n, *d = b + n, *e = d + n;
        double sa[2] = {0.0, 0.0}, sb[2] = {0.0, 0.0}, sd[2] = {0.0, 0.0}, se[2] = {0.0, 0.0};
        int32_t i = 0;
        for (; i + 2 <= n; i += 2) {
            for (int l = 0; l < 2; ++l) {
                sa[l] += a[i + l] * v[i + l];
                sb[l] += b[i + l] * v[i + l];
                sd[l] += d[i + l] * v[i + l];
                se[l] += e[i + l] * v[i + l];
            }
        }
        for (; i < n; ++i) {
            sa[0] += a[i] * v[i];
            sb[0] += b[i] * v[i];
            sd[0] += d[i] * v[i];
            se[0] += e[i] * v[i];
        }
        t[k] = sa[0] + sa[1];
        t[k + 1] = sb[0] + sb[1];
        t[k + 2] = sd[0] + sd[1];
        t[k + 3] = se[0] + se[1];
    }
    for (; k < r; ++k) {
        t[k] = dot(n, rows + (int64_t)n * k, v);
    }
    if (h->p) {
        turn_block(h->p, h->turn, 0, t + h->s, t + 2 * (int64_t)r);
    }
    for (k = 0; k < r; ++k) {
        t[r + k] = dot(r, core + (int64_t)r * k, t);
    }
    if (h->p) {
        turn_block(h->p, h->turn, 1, t + r + h->s, t + 2 * (int64_t)r);
    }
    for (k = 0; k + 4 <= r; k += 4) { /* four rows a pass over out */
        const double *a = rows + (int64_t)n * k, *b = a + n, *d = b + n, *e = d + n;
        const double wa = t[r + k], wb = t[r + k + 1], wd = t[r + k + 2], we = t[r + k + 3];
        for (int32_t i = 0; i < n; ++i) {
            out[i] += ((wa * a[i] + wb * b[i]) + (wd * d[i] + we * e[i]));
        }
    }
    for (; k < r; ++k) {
        const double w = t[r + k];
        const double *row = rows + (int64_t)n * k;
        for (int32_t i = 0; i < n; ++i) {
            out[i] += w * row[i];
        }
    }
}

/* newton.newton_step: conjugate gradients on P ∇²G P s = −P g, preconditioned by H.
 *
 * The first seventeen arguments are rk_hessian_tree's (the pose's ∇²G); held, the
 * projection P (see hold); dense, or c, r, rows, core, s, p and turn, H (see Metric). The
 * iteration stops at a residual of min(forcing, √(‖r₀‖/scale))·‖r₀‖, at curvature that is
 * not positive, or after max_products products. scratch holds 24 · n_segments doubles,
 * work 4n + 3r. Returns the products taken; step is written when one of positive
 * curvature was (*made = 1), else *made = 0.
 */
RK_EXPORT int32_t rk_newton_cg(POSE_HESSIAN, const uint8_t *held, const double *dense, double c,
                               int32_t r, const double *rows, const double *core, int32_t s,
                               int32_t p, const double *turn, const double *gradient,
                               double scale, int32_t max_products, double forcing,
                               double *scratch, double *work, double *step, int32_t *made) {
    const Metric h = {dense, c, r, rows, core, s, p, turn};
    double *residual = work, *direction = work + n, *curved = work + 2 * (int64_t)n;
    double *preconditioned = work + 3 * (int64_t)n, *t = work + 4 * (int64_t)n;
    *made = 0;
    for (int32_t j = 0; j < n; ++j) {
        residual[j] = -gradient[j];
    }
    hold(n, held, residual);
    const double first = sqrt(dot(n, residual, residual));
    if (first == 0.0) {
        return 0;
    }
    const double relative = sqrt(first / scale);
    const double stop = (forcing < relative ? forcing : relative) * first;
    precondition(n, &h, residual, t, direction);
    double rz = dot(n, residual, direction);
    int32_t products = 0;
    while (products < max_products && rz > 0.0) {
        tree_product(POSE_HESSIAN_ARGUMENTS, direction, scratch, curved);
        hold(n, held, curved);
        products += 1;
        const double curvature = dot(n, direction, curved);
        if (!(curvature > 0.0)) { /* negative curvature (or NaN): keep what was found */
            break;
        }
        const double alpha = rz / curvature;
        for (int32_t j = 0; j < n; ++j) {
            step[j] = *made ? step[j] + alpha * direction[j] : alpha * direction[j];
            residual[j] -= alpha * curved[j];
        }
        *made = 1;
        if (sqrt(dot(n, residual, residual)) <= stop) {
            break;
        }
        precondition(n, &h, residual, t, preconditioned);
        const double next = dot(n, residual, preconditioned);
        const double ratio = next / rz;
        for (int32_t j = 0; j < n; ++j) {
            direction[j] = preconditioned[j] + ratio * direction[j];
        }
        rz = next;
    }
    return products;
}

/* What goldfarb._Run's Gauss–Newton iterations see of a problem of an Objective's goals
 * (its blocks, goal vectors and weights as rk_objective reads them) over the scaled free
 * DOFs φ, its rows, and the bounds active in the descent.
 * θ = base with θ[variables] = scale ∘ φ; the descent minimises G/w, whose gradient over φ
 * is (scale / w) ∘ ∂G/∂θ[variables] (methods.base.Scaled.objective); F's rows are scaled
 * by scale / √w (Scaled.curvature). The q active rows are bounds: row i is sign[i] on
 * variable bound[i] alone, held at rhs[i] (held[j] = 1 for each variable one holds; NULL
 * with q = 0), and the equality rows, orthonormal and zero on every held variable, always
 * active (a_eq φ = b_eq; equalities = 0: none); row[i] is bound i's inequality row, and a
 * whole descent (rk_gauss_newton_descent) adds the bounds it meets to these arrays, which
 * have room for n. Active inequality rows that are no bounds (a limit polygon's edges)
 * are held as equality rows are, the last `others` of them, the rows held as equalities
 * being Rᵀ a_eq of the rows given (R upper triangular in upper, b_eq their right-hand
 * sides R⁻ᵀ b). For Goldfarb's drop tests each such row j has other_rows' row
 * N (NᵀN)⁻¹ e_j / √((NᵀN)⁻¹_jj) of the active rows N: its product with the gradient is
 * the row's multiplier so scaled (β, as a bound's is sign·g), with F's columns its reach
 * off the others. A whole descent adds the rows its steps meet that are no bounds there
 * too, where they fit in room (hold_row), and lists every row it adds in added. pose holds
 * the pose at posed_at (n) when posed is 1: the last point evaluated; theta holds that
 * point's θ and total G there. F has k = 3·blocks·m columns, one a goal vector's
 * coordinate. */
typedef struct {
    const Objective *objective;
    const double *goal;
    const double *weight;
    const double *moves;
    int32_t n_dofs;
    const double *base;
    const double *scale;
    double weight_scale;
    int32_t rows;
    const double *a;
    const double *b;
    double relative;
    double absolute;
    double *theta;
    double *pose;
    double *posed_at;
    int32_t posed;
    double total;
    int32_t q;
    int32_t *bound;
    double *sign;
    double *rhs;
    uint8_t *held;
    int32_t blocks;
    const double *faces; /* rk_objective's: NULL where every goal is a squared distance */
    int32_t equalities;  /* equality rows, always active: orthonormal, none on a held variable */
    double *a_eq;        /* (equalities, n) */
    double *b_eq;
    int32_t *row; /* each active bound's inequality row (q; room for n) */
    int32_t others;      /* active inequality rows that are no bounds (see below) */
    double *other_rows;  /* (others, n) */
    int32_t room;        /* rows a_eq, b_eq, upper and other_rows have room for */
    double *upper;       /* R (room × room): the rows held as equalities are Rᵀ a_eq */
    int32_t *added;      /* the inequality rows the steps met, in turn (room for n) */
    int32_t n_added;
    const double *off;   /* the row a search meets, less its part on the active rows */
    const int32_t *row_bound; /* each inequality row's variable where it is a bound, else −1 */
    const int32_t *row_span;  /* each inequality row's nonzero entries, from and past (rows, 2) */
} Descent;

/* v ← P v: v less its part on the active rows, the held variables zeroed (hold) and the
 * part along the equality rows taken off (the rows are orthonormal and zero where held). */
static void project_held(const Descent *d, double *v) {
    const int32_t n = d->objective->n;
    hold(n, d->q ? d->held : 0, v);
    take_off(n, d->equalities, d->a_eq, v);
}

static int32_t leaf_factor(const Descent *d, const double *weights, double *f);

/* F's count columns (column-major, n rows) scaled as the descent's: by scale / √w. */
static void scale_columns(const Descent *d, int64_t count, double *f) {
    const int32_t n = d->objective->n;
    const double root = sqrt(d->weight_scale);
    for (int64_t a = 0; a < count; ++a) {
        for (int32_t j = 0; j < n; ++j) {
            f[a * n + j] *= d->scale[j] / root;
        }
    }
}

/* G/w and its gradient over φ at phi (methods.base.Scaled.objective). */
static double descent_value(Descent *d, const double *phi, double *gradient) {
    const Objective *o = d->objective;
    const int32_t n = o->n;
    for (int32_t i = 0; i < d->n_dofs; ++i) {
        d->theta[i] = d->base[i];
    }
    for (int32_t j = 0; j < n; ++j) {
        d->theta[o->variables[j]] = d->scale[j] * phi[j];
    }
    const double total = rk_objective(o, d->theta, d->blocks, d->goal, d->weight, d->faces, d->pose);
    memcpy(d->posed_at, phi, sizeof(double) * (size_t)n);
    d->posed = 1;
    d->total = total;
    const double *own = d->pose + 9 * (int64_t)o->leaves + 6 * (int64_t)n;
    for (int32_t j = 0; j < n; ++j) {
        gradient[j] = own[j] * (d->scale[j] / d->weight_scale);
    }
    return total / d->weight_scale;
}

/* The descent posed at phi again where its last evaluation was elsewhere (a trial it did
 * not keep), so that the pose it leaves is the one at its end (DescentPlan.last, which the
 * solve's result reads instead of evaluating there once more); not counted as an
 * evaluation. scratch: n numbers. */
static void pose_at_end(Descent *d, const double *phi, double *scratch) {
    const size_t size = sizeof(double) * (size_t)d->objective->n;
    if (!d->posed || memcmp(d->posed_at, phi, size) != 0) {
        descent_value(d, phi, scratch);
    }
}

/* A point and its gradient copied (n each). */
static void keep(int32_t n, const double *point, const double *gradient, double *to_point,
                 double *to_gradient) {
    for (int32_t j = 0; j < n; ++j) {
        to_point[j] = point[j];
        to_gradient[j] = gradient[j];
    }
}

/* linesearch.cubic_minimiser. */
static double cubic_minimiser(double a, double fa, double da, double b, double fb, double db) {
    const double width = b - a, lo = a + 0.1 * width, hi = b - 0.1 * width;
    const double d1 = da + db - 3.0 * (fa - fb) / (a - b);
    const double radicand = d1 * d1 - da * db;
    if (radicand >= 0.0 && isfinite(radicand)) {
        const double d2 = copysign(sqrt(radicand), b - a);
        const double denominator = db - da + 2.0 * d2;
        if (denominator != 0.0) {
            const double x = b - (b - a) * (db + d2 - d1) / denominator;
            if (isfinite(x)) {
                return x < lo ? lo : (x > hi ? hi : x);
            }
        }
    }
    return 0.5 * (a + b);
}

/* The variable row i of A bounds (one entry, ±1), or −1 where it is no bound. */
static int32_t bound_of(int32_t n, const double *row) {
    int32_t variable = -1;
    for (int32_t j = 0; j < n; ++j) {
        if (row[j] != 0.0) {
            if (variable >= 0 || fabs(row[j]) != 1.0) {
                return -1;
            }
            variable = j;
        }
    }
    return variable;
}

/* ActiveSet.correct of the active rows, and of row hit too (≥ 0): the equalities met by the
 * projection onto them when one is off by more than 1e-13, each bound's variable set to the
 * bound exactly (s·φ = b with s = ±1 is φ = s·b), and a row hit that is no bound met when
 * off by more than 1e-13 by the projection onto it: along the row, or where rows are active
 * along its part off them (d->off, which a whole descent's search sets). */
static void put_back(const Descent *d, int32_t hit, double *point) {
    const int32_t n = d->objective->n;
    double off = 0.0; /* the equalities met by their projection when one is off by 1e-13 */
    for (int32_t l = 0; l < d->equalities; ++l) {
        const double extra = fabs(dot(n, d->a_eq + (int64_t)n * l, point) - d->b_eq[l]);
        off = extra > off ? extra : off;
    }
    for (int32_t l = 0; off > 1e-13 && l < d->equalities; ++l) {
        const double *row = d->a_eq + (int64_t)n * l;
        const double extra = dot(n, row, point) - d->b_eq[l];
        for (int32_t j = 0; j < n; ++j) {
            point[j] -= extra * row[j];
        }
    }
    for (int32_t i = 0; i < d->q; ++i) {
        point[d->bound[i]] = d->sign[i] * d->rhs[i];
    }
    if (hit < 0) {
        return;
    }
    const double *row = d->a + (int64_t)n * hit;
    const int32_t variable = bound_of(n, row);
    if (variable >= 0) {
        point[variable] = row[variable] * d->b[hit];
        return;
    }
    const double extra = dot(n, row, point) - d->b[hit];
    if (fabs(extra) <= 1e-13) {
        return;
    }
    if (d->off) { /* along the row's part off the active rows, which it keeps */
        const double along = (1.0 / dot(n, row, d->off)) * extra;
        for (int32_t j = 0; j < n; ++j) {
            point[j] -= d->off[j] * along;
        }
        return;
    }
    const double along = (1.0 / dot(n, row, row)) * extra;
    for (int32_t j = 0; j < n; ++j) {
        point[j] -= row[j] * along;
    }
}

/* One trial of linesearch.ProjectedTrial: the point phi + alpha·step, put back onto the
 * active bounds, and onto row hit too at the cap, G/w there, its gradient and slope. */
static double descent_trial(Descent *d, const double *phi, const double *step, double alpha,
                            double cap, int32_t hit, double *point, double *gradient,
                            double *slope) {
    const int32_t n = d->objective->n;
    for (int32_t j = 0; j < n; ++j) {
        point[j] = phi[j] + alpha * step[j];
    }
    put_back(d, hit >= 0 && alpha >= cap ? hit : -1, point);
    const double value = descent_value(d, point, gradient);
    *slope = dot(n, gradient, step);
    return value;
}

/* H's Gauss–Newton start at phi on the active rows' null space (goldfarb._Run.initial_h
 * through metric._woodbury_start, bounds zeroed, equalities projected off) and the product
 * H g.
 *
 * Writes F's columns at phi, scaled, into factor (k × n, k = 3·blocks·m); (PF)ᵀ, F with
 * the held variables zeroed and its part along the equalities taken off, into projected
 * (k × n); L⁻¹ into turn (k × k); H g into hg (n), with H = (P − PF L⁻ᵀ L⁻¹ FᵀP)/μ; μ into
 * *damping. work holds 2n + 3k + k² doubles. Returns RK_STARTED, or
 * RK_NOT_POSITIVE_DEFINITE where F's curvature is not positive definite to rounding. */
RK_EXPORT int32_t rk_gauss_newton_start(Descent *d, const double *phi, double value,
                                        const double *gradient, double *factor,
                                        double *projected, double *turn, double *hg,
                                        double *damping, double *work) {
    const Objective *o = d->objective;
    const int32_t n = o->n, m = o->leaves, k = 3 * d->blocks * m;
    double *held = work, *t = work + n, *scratch = t + 2 * (int64_t)k;
    /* F at phi from the pose there (held takes the gradient, not needed), scaled */
    if (!d->posed || memcmp(d->posed_at, phi, sizeof(double) * (size_t)n) != 0) {
        descent_value(d, phi, held);
    }
    double *weights = t; /* √(2 w): a squared distance's curvature */
    for (int32_t e = 0; e < d->blocks * m; ++e) {
        weights[e] = sqrt(d->weight[e] * 2.0);
    }
    if (o->shares != 0 || d->faces != 0) { /* F's columns the goals weigh, then zeros */
        const int32_t used = leaf_factor(d, weights, factor);
        memset(factor + (int64_t)used * n, 0, sizeof(double) * (size_t)(k - used) * (size_t)n);
    } else {
        const double *points = d->pose, *axes = d->pose + 9 * (int64_t)m;
        const double *pivots = axes + 3 * (int64_t)n;
        rk_factor(n, m, d->blocks, points, d->moves, weights, axes, pivots,
                  o->variable_rotation, factor);
        scale_columns(d, k, factor);
    }
    const double mu = woodbury(n, k, d->q, factor, d->bound, 0, d->equalities, d->a_eq,
                               projected, d->relative, d->absolute, value, turn, scratch);
    *damping = mu;
    if (mu < 0.0) {
        return RK_NOT_POSITIVE_DEFINITE;
    }
    /* H g = (P g − PF L⁻ᵀ L⁻¹ (PF)ᵀ P g)/μ: (PF)ᵀ P g = (PF)ᵀ g, PF being zero where held */
    memcpy(held, gradient, sizeof(double) * (size_t)n);
    project_held(d, held);
    for (int32_t c = 0; c < k; ++c) {
        t[c] = dot(n, projected + (int64_t)n * c, held);
    }
    turn_block(k, turn, 0, t, t + k);
    turn_block(k, turn, 1, t, t + k);
    for (int32_t j = 0; j < n; ++j) {
        hg[j] = held[j];
    }
    for (int32_t c = 0; c < k; ++c) {
        const double w = t[c];
        const double *row = projected + (int64_t)n * c;
        for (int32_t j = 0; j < n; ++j) {
            hg[j] -= w * row[j];
        }
    }
    for (int32_t j = 0; j < n; ++j) {
        hg[j] /= mu;
    }
    return RK_STARTED;
}

/* goldfarb._Run.step from the step −hg: its projection onto the active bounds, the ratio
 * test over the inactive rows (ActiveSet.first_block, passing over rows that depend on the
 * active ones) and the line search (linesearch.line_search, expanding).
 *
 * out (4): the slope gᵀs (s before the projection, as the descent computes it), λ_max (the
 * ratio test's step factor, +inf when no row blocks), the accepted α and G/w there; point
 * and point_gradient: the accepted point and its gradient; counts (3): the row met at
 * λ_max (−1: none), the evaluations, and the status: RK_STEP_TAKEN, RK_NO_DESCENT (−H g
 * is none), RK_BLOCKED_AT_ONCE (λ_max ≤ 1e-15, or the row within rounding of φ and no decrease
 * short of it: goldfarb.within_rounding), RK_NO_DECREASE (the line search found
 * none) or RK_ROW_NOT_A_BOUND (the row met is no bound while rows are active: the
 * descent takes that step itself).
 * work holds 6n + rows doubles. */
static void search(Descent *d, const double *phi, double value, const double *gradient,
                   const double *hg, const uint8_t *inactive, double *out, double *point,
                   double *point_gradient, int32_t *counts, double *work, int32_t meets_rows);

RK_EXPORT void rk_gauss_newton_search(Descent *d, const double *phi, double value,
                                      const double *gradient, const double *hg,
                                      const uint8_t *inactive, double *out, double *point,
                                      double *point_gradient, int32_t *counts, double *work) {
    search(d, phi, value, gradient, hg, inactive, out, point, point_gradient, counts, work, 0);
}

/* Whether the move limit × step to a row is at most RK_AT_ONCE of φ's size, sizes being
 * largest entries, φ's 1 at least (goldfarb.within_rounding). */
static int32_t within_rounding(int32_t n, double limit, const double *step, const double *phi) {
    double size = 1.0, most = 0.0;
    for (int32_t j = 0; j < n; ++j) {
        size = fabs(phi[j]) > size ? fabs(phi[j]) : size;
        most = fabs(step[j]) > most ? fabs(step[j]) : most;
    }
    return limit * most <= RK_AT_ONCE * size;
}

/* rk_gauss_newton_search, and with meets_rows (a whole descent's) the step that meets a row
 * that is no bound while rows are active taken too, capped onto the row along its part off
 * them. */
static void search(Descent *d, const double *phi, double value, const double *gradient,
                   const double *hg, const uint8_t *inactive, double *out, double *point,
                   double *point_gradient, int32_t *counts, double *work, int32_t meets_rows) {
    const int32_t n = d->objective->n, q = d->q;
    d->off = 0;
    double *step = work, *low = work + n, *low_gradient = low + n;
    double *trial = low_gradient + n, *trial_gradient = trial + n, *rates = trial_gradient + n;
    counts[0] = -1;
    counts[1] = 0;
    for (int32_t j = 0; j < n; ++j) {
        step[j] = -hg[j];
    }
    const double slope0 = dot(n, gradient, step);
    out[0] = slope0;
    if (slope0 >= 0.0) {
        counts[2] = RK_NO_DESCENT;
        return;
    }
    project_held(d, step);
    /* the ratio test (ActiveSet.first_block) */
    const double length = sqrt(dot(n, step, step));
    double limit = INFINITY;
    int32_t hit = -1;
    for (int32_t i = 0; i < d->rows; ++i) {
        if (!inactive[i]) {
            continue;
        }
        /* a bound's products by its one entry, another row's over its span: the same bits
         * as the dense products, whose other terms are all zero */
        const double *row = d->a + (int64_t)n * i;
        const int32_t v = d->row_bound[i], lo = d->row_span[2 * i], hi = d->row_span[2 * i + 1];
        rates[i] = v >= 0 ? row[v] * step[v] : dot_within(n, row, step, lo, hi);
        if (!(rates[i] < -1e-14 * length)) {
            continue;
        }
        double rest = 0.0; /* the row's part off the active rows (ActiveSet.independent) */
        for (int32_t j = lo; j < hi; ++j) {
            rest += q && d->held[j] ? 0.0 : row[j] * row[j];
        }
        for (int32_t l = 0; l < d->equalities; ++l) { /* orthonormal, zero where held */
            const double *along_row = d->a_eq + (int64_t)n * l;
            const double along = v >= 0 ? along_row[v] * row[v]
                                        : dot_within(n, along_row, row, lo, hi);
            rest -= along * along;
        }
        if (!(rest > 1e-10)) {
            continue;
        }
        double slack = (v >= 0 ? row[v] * phi[v] : dot_within(n, row, phi, lo, hi)) - d->b[i];
        slack = slack > 0.0 ? slack : 0.0;
        const double ratio = slack / -rates[i];
        if (hit < 0 || ratio < limit) {
            limit = ratio;
            hit = i;
        }
    }
    out[1] = limit;
    counts[0] = hit;
    if (hit >= 0 && limit <= 1e-15) {
        counts[2] = RK_BLOCKED_AT_ONCE;
        return;
    }
    if (hit >= 0 && (q || d->equalities) && bound_of(n, d->a + (int64_t)n * hit) < 0) {
        if (!meets_rows) {
            counts[2] = RK_ROW_NOT_A_BOUND;
            return;
        }
        double *off = rates + d->rows; /* the row's part off the active rows */
        memcpy(off, d->a + (int64_t)n * hit, sizeof(double) * (size_t)n);
        project_held(d, off);
        d->off = off;
    }
    /* the line search: ends of the bracket as (α, G/w, slope); the low end's point kept */
    const double c1 = 1e-4, c2 = 0.9, noise = 1e-13 * fabs(value);
    const int32_t most = 30;
    double at[3] = {limit < 1.0 ? limit : 1.0, 0.0, 0.0};
    at[1] = descent_trial(d, phi, step, at[0], limit, hit, trial, trial_gradient, &at[2]);
    int32_t evaluations = 1;
    double lo[3] = {0.0, value, slope0}, hi[3];
    int accepted = 0;
#define DECREASES(al, va) \
    ((va) <= value + c1 * (al) * slope0 || ((va) <= value && c1 * (al) * -slope0 <= noise))
#define TAKE(end, from) ((end)[0] = (from)[0], (end)[1] = (from)[1], (end)[2] = (from)[2])
    while (DECREASES(at[0], at[1]) && at[1] <= lo[1]) {
        if (at[0] >= limit || at[2] >= c2 * slope0 || evaluations >= most) {
            accepted = 1;
            break;
        }
        TAKE(lo, at);
        keep(n, trial, trial_gradient, low, low_gradient);
        at[0] = 4.0 * at[0] < limit ? 4.0 * at[0] : limit;
        at[1] = descent_trial(d, phi, step, at[0], limit, hit, trial, trial_gradient, &at[2]);
        evaluations += 1;
    }
    if (!accepted) {
        TAKE(hi, at);
        const double floor = 1e-300;
        while (evaluations < most && hi[0] - lo[0] > 1e-15 * (hi[0] > floor ? hi[0] : floor)) {
            at[0] = cubic_minimiser(lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]);
            at[1] = descent_trial(d, phi, step, at[0], limit, hit, trial, trial_gradient, &at[2]);
            evaluations += 1;
            if (!(DECREASES(at[0], at[1]) && at[1] <= lo[1])) {
                TAKE(hi, at);
            } else if (at[2] >= c2 * slope0) {
                accepted = 1;
                break;
            } else {
                TAKE(lo, at);
                keep(n, trial, trial_gradient, low, low_gradient);
            }
        }
        if (!accepted && lo[0] > 0.0) { /* the low end moved: its point is kept */
            TAKE(at, lo);
            keep(n, low, low_gradient, trial, trial_gradient);
            accepted = 1;
        }
    }
#undef TAKE
#undef DECREASES
    counts[1] = evaluations;
    if (hit >= 0 && (!accepted || !(at[1] < value)) && within_rounding(n, limit, step, phi)) {
        counts[2] = RK_BLOCKED_AT_ONCE; /* no decrease short of a row this near: add it */
        out[2] = 0.0;
        out[3] = value;
        return;
    }
    if (!accepted) {
        counts[2] = RK_NO_DECREASE;
        out[2] = 0.0;
        out[3] = value;
        return;
    }
    keep(n, trial, trial_gradient, point, point_gradient);
    out[2] = at[0];
    out[3] = at[1];
    counts[2] = RK_STEP_TAKEN;
}

/* goldfarb._Run.add of the row hit, which a step met: a bound joins the active ones (its
 * variable held from now on, the row no longer inactive). Returns 0, adding nothing, where
 * the row is no bound or an equality row touches its variable: goldfarb._Run then takes
 * the next steps itself (compiled_gauss_newton.held_bounds). */
static int32_t hold_bound(Descent *d, int32_t hit, uint8_t *inactive) {
    const int32_t n = d->objective->n, q = d->q;
    const double *row = d->a + (int64_t)n * hit;
    const int32_t variable = bound_of(n, row);
    if (variable < 0) {
        return 0;
    }
    for (int32_t l = 0; l < d->equalities; ++l) {
        if (d->a_eq[(int64_t)n * l + variable] != 0.0) {
            return 0;
        }
    }
    d->bound[q] = variable;
    d->sign[q] = row[variable];
    d->rhs[q] = d->b[hit];
    d->row[q] = hit;
    d->held[variable] = 1;
    inactive[hit] = 0;
    d->q = q + 1;
    d->added[d->n_added++] = hit;
    return 1;
}

/* goldfarb._Run.add of the row hit that is no bound, which a step met: held from now on
 * as the other rows that are no bounds are (Descent), its part off the rows held as
 * equalities the next of them (Gram–Schmidt twice over, R's next column), its right-hand
 * side and every such row's direction for the drop tests found again. Returns 0, adding
 * nothing, where it touches a held variable (the bounds and these stay apart), where there
 * is no room, or where it lies in the span of the others. */
static int32_t hold_row(Descent *d, int32_t hit, uint8_t *inactive) {
    const int32_t n = d->objective->n, m = d->equalities, room = d->room;
    const double *row = d->a + (int64_t)n * hit;
    if (m >= room) {
        return 0;
    }
    for (int32_t j = 0; d->q && j < n; ++j) {
        if (d->held[j] && row[j] != 0.0) {
            return 0;
        }
    }
    double *next = d->a_eq + (int64_t)n * m, *upper = d->upper;
    memcpy(next, row, sizeof(double) * (size_t)n);
    for (int32_t i = 0; i < m; ++i) {
        upper[(int64_t)room * i + m] = 0.0;
    }
    for (int32_t pass = 0; pass < 2; ++pass) {
        for (int32_t i = 0; i < m; ++i) {
            const double *basis = d->a_eq + (int64_t)n * i;
            const double along = dot(n, basis, next);
            upper[(int64_t)room * i + m] += along;
            for (int32_t j = 0; j < n; ++j) {
                next[j] -= along * basis[j];
            }
        }
    }
    const double size = sqrt(dot(n, next, next));
    if (!(size * size > 1e-10)) {
        return 0;
    }
    for (int32_t j = 0; j < n; ++j) {
        next[j] /= size;
    }
    for (int32_t i = 0; i < m; ++i) {
        upper[(int64_t)room * m + i] = 0.0;
    }
    upper[(int64_t)room * m + m] = size;
    double side = d->b[hit]; /* R⁻ᵀ b's next entry */
    for (int32_t i = 0; i < m; ++i) {
        side -= upper[(int64_t)room * i + m] * d->b_eq[i];
    }
    d->b_eq[m] = side / size;
    d->equalities = m + 1;
    d->others += 1;
    /* each such row j's direction off the others: Qᵀ u / ‖u‖ with Rᵀ u = e_j */
    double *u = d->other_rows + (int64_t)n * d->others; /* room beyond the last (m < room) */
    for (int32_t l = 0; l < d->others; ++l) {
        const int32_t j = m + 1 - d->others + l;
        double length = 0.0;
        for (int32_t i = 0; i <= m; ++i) {
            double v = i == j ? 1.0 : 0.0;
            for (int32_t k = 0; k < i; ++k) {
                v -= upper[(int64_t)room * k + i] * u[k];
            }
            u[i] = i < j ? 0.0 : v / upper[(int64_t)room * i + i];
            length += u[i] * u[i];
        }
        double *direction = d->other_rows + (int64_t)n * l;
        memset(direction, 0, sizeof(double) * (size_t)n);
        for (int32_t i = j; i <= m; ++i) {
            const double *basis = d->a_eq + (int64_t)n * i;
            const double w = u[i] / sqrt(length);
            for (int32_t c = 0; c < n; ++c) {
                direction[c] += w * basis[c];
            }
        }
    }
    inactive[hit] = 0;
    d->added[d->n_added++] = hit;
    return 1;
}

/* goldfarb.gauss_newton_descent: goldfarb._Run's iterations from phi while each is a fresh
 * Gauss–Newton step (rk_gauss_newton_start, then rk_gauss_newton_search) on the active
 * rows (bounds, the equalities and the other rows held as equalities, see Descent) that
 * either leaves G/w at most drop of itself or lowers it onto a row it meets, which then
 * joins the active ones (hold_bound, hold_row): either way H starts afresh at the next
 * one; until G/w ≤ goal_value or the time runs out. Each iteration first takes the
 * Kuhn–Tucker test (active_set.kkt_floor, with its shares rounding and rounding_root of
 * ‖g‖ and √|G|) on the projected gradient, then goldfarb._Run.choose_drop's on the
 * inequality rows' multipliers β (a bound's sign_i g[bound_i], another row's product with
 * other_rows): the most negative is kept while ‖H g‖ > −β and a Newton step off its row
 * (of curvature ‖Fᵀ d‖² + μ along the row's direction d off the others, μ damped as H's
 * start from the largest ‖F_j‖²) promises less than one on the face.
 *
 * phi and gradient: the start on entry (the gradient is evaluated here), the end on return
 * (with RK_GENERAL, the last point an iteration reached, from which goldfarb._Run goes on);
 * normed: the projected gradient the descent tested last; out (3): G/w, the evaluations
 * and the iterations, of the steps taken to the end; d's rows, those active there (in
 * added, those its steps met). seconds: the time budget from now, checked before every
 * iteration but the first (< 0: none). work holds 2kn + k² + 8n + 4 + rows + (2n + 3k + k²)
 * doubles.
 * Returns RK_GOALS_MET, RK_TIME_SPENT, RK_MET_AT_START (nothing tested yet), or RK_GENERAL
 * for anything else (a row left, a row met that touches a held variable or lowers nothing,
 * a slower decrease, a Kuhn–Tucker point, the iterations spent: goldfarb._Run goes on from
 * the end, where its own iterations are). */
RK_EXPORT int32_t rk_gauss_newton_descent(Descent *d, double *phi, double *gradient,
                                          double *normed, double *out, uint8_t *inactive,
                                          double goal_value, double tolerance,
                                          double rounding, double rounding_root, double drop,
                                          int32_t max_iterations, double seconds,
                                          double *work) {
    const int32_t n = d->objective->n, k = 3 * d->blocks * d->objective->leaves;
    const double began = seconds >= 0.0 ? monotonic_seconds() : 0.0;
    double *factor = work, *projected = factor + (int64_t)k * n;
    double *turn = projected + (int64_t)k * n, *hg = turn + (int64_t)k * k;
    double *point = hg + n, *point_gradient = point + n, *found = point_gradient + n;
    double *own = found + 4;
    int32_t counts[3], evaluations = 1, iterations = 0, status = RK_GENERAL, tested = 0;
    double value = descent_value(d, phi, gradient);
    for (;;) {
        if (value <= goal_value) {
            status = tested ? RK_GOALS_MET : RK_MET_AT_START;
            break;
        }
        memcpy(normed, gradient, sizeof(double) * (size_t)n);
        project_held(d, normed);
        tested = 1;
        const double norm = sqrt(dot(n, gradient, gradient));
        const double projected_norm = sqrt(dot(n, normed, normed));
        double floor = tolerance; /* active_set.kkt_floor */
        floor = rounding * norm > floor ? rounding * norm : floor;
        floor = rounding_root * sqrt(fabs(value)) > floor ? rounding_root * sqrt(fabs(value)) : floor;
        if (projected_norm <= floor) {
            break; /* a Kuhn–Tucker point, or a bound to leave there */
        }
        int32_t worst = -1; /* a bound's index, or q + an other row's */
        double beta = 0.0;
        for (int32_t i = 0; i < d->q; ++i) {
            const double lambda = d->sign[i] * gradient[d->bound[i]];
            if (worst < 0 || lambda < beta) {
                worst = i;
                beta = lambda;
            }
        }
        for (int32_t l = 0; l < d->others; ++l) {
            const double lambda = dot(n, d->other_rows + (int64_t)n * l, gradient);
            if (worst < 0 || lambda < beta) {
                worst = d->q + l;
                beta = lambda;
            }
        }
        int32_t started = 0;
        double damping = 0.0;
        if (beta < 0.0) { /* choose_drop: H g for Goldfarb's test and leaving_pays */
            if (rk_gauss_newton_start(d, phi, value, gradient, factor, projected, turn, hg,
                                      &damping, own) != RK_STARTED) {
                break;
            }
            started = 1;
            if (sqrt(dot(n, hg, hg)) <= -beta) {
                break;
            }
            double largest = 0.0, reach = 0.0;
            for (int32_t j = 0; j < n; ++j) {
                double size = 0.0;
                for (int32_t c = 0; c < k; ++c) {
                    size += factor[(int64_t)n * c + j] * factor[(int64_t)n * c + j];
                }
                largest = size > largest ? size : largest;
            }
            const double *away = worst < d->q ? 0 : d->other_rows + (int64_t)n * (worst - d->q);
            for (int32_t c = 0; c < k; ++c) {
                const double *column = factor + (int64_t)n * c;
                const double f = away ? dot(n, column, away) : column[d->bound[worst]];
                reach += f * f;
            }
            double mu = d->relative * largest;
            mu = d->absolute * fabs(value) > mu ? d->absolute * fabs(value) : mu;
            mu = 1e-12 > mu ? 1e-12 : mu;
            if (dot(n, gradient, hg) * (reach + mu) <= beta * beta) {
                break;
            }
        }
        if (iterations >= max_iterations) {
            break;
        }
        if (seconds >= 0.0 && iterations && monotonic_seconds() - began >= seconds) {
            status = RK_TIME_SPENT;
            break;
        }
        if (!started && rk_gauss_newton_start(d, phi, value, gradient, factor, projected, turn,
                                              hg, &damping, own) != RK_STARTED) {
            break;
        }
        search(d, phi, value, gradient, hg, inactive, found, point, point_gradient, counts, own,
               1);
        if (counts[2] != RK_STEP_TAKEN) {
            break; /* the iteration is not counted: the general descent takes it */
        }
        if (counts[0] >= 0 && found[2] >= found[1]) { /* a row met: _Run.accept adds it */
            const int32_t hit = counts[0];
            if (!(found[3] < value) || !(bound_of(n, d->a + (int64_t)n * hit) >= 0
                                             ? hold_bound(d, hit, inactive)
                                             : hold_row(d, hit, inactive))) {
                break;
            }
        } else if (!(found[3] <= drop * value)) {
            break;
        }
        iterations += 1;
        evaluations += counts[1];
        keep(n, point, point_gradient, phi, gradient);
        value = found[3];
    }
    pose_at_end(d, phi, point_gradient);
    out[0] = value;
    out[1] = evaluations;
    out[2] = iterations;
    return status;
}

/* relax._damped_solve: x = (S + μ I)⁻¹ r for S (p, p) symmetric, μ = max(gram · S's largest
 * diagonal entry, 1e-300), by Cholesky's factor of S + μ I written over S (cholesky).
 * Returns 0, or −1 where S + μ I is not positive definite to rounding. */
static int32_t damped_solve(int32_t p, double *s, const double *right, double gram, double *x) {
    double largest = 0.0;
    for (int32_t i = 0; i < p; ++i) {
        largest = s[(int64_t)p * i + i] > largest ? s[(int64_t)p * i + i] : largest;
    }
    double mu = gram * largest;
    mu = mu > 1e-300 ? mu : 1e-300;
    if (cholesky(p, s, mu) != 0) {
        return -1;
    }
    for (int32_t i = 0; i < p; ++i) { /* L z = r */
        double sum = right[i];
        for (int32_t l = 0; l < i; ++l) {
            sum -= s[(int64_t)p * i + l] * x[l];
        }
        x[i] = sum / s[(int64_t)p * i + i];
    }
    for (int32_t i = p - 1; i >= 0; --i) { /* Lᵀ x = z */
        double sum = x[i];
        for (int32_t l = i + 1; l < p; ++l) {
            sum -= s[(int64_t)p * l + i] * x[l];
        }
        x[i] = sum / s[(int64_t)p * i + i];
    }
    return 0;
}

/* What rk_settle reads besides the descent: comfort's aim and the rounds' constants
 * (relax's module constants and _newton_rounds' own). */
typedef struct {
    const double *target; /* τ (n) */
    const double *masses; /* m (n) */
    double damping;       /* λ of the metric M + λ I */
    double nearby;        /* G/w a round's point may have */
    double ceiling;       /* G/w the steps onto the goals end at */
    double radius;        /* the first trust radius */
    double penalty;       /* ν's share of ‖y‖ */
    double small;         /* a step no longer than this in every variable ends the rounds */
    double rounding;      /* a merit gain below this share of C ends them */
    double gram;          /* the normal matrices' damping */
    double push;          /* a rate below −push moves a row outward */
    int32_t rounds;
    int32_t halvings;
    int32_t depth;
    int32_t projections;
    const double *a_eq; /* the equality rows (equalities, n), orthonormal; NULL with none */
    const double *b_eq; /* their right-hand sides (equalities) */
    int32_t equalities;
} Settle;

/* Work of the rounds, laid out in the caller's buffers (rk_settle). */
typedef struct {
    double *factor, *s, *residual, *right, *y, *back_y, *pull, *inverse, *step, *back, *move;
    double *trial, *trial_gradient, *mixed, *slack, *rates, *points, *steps, *gram, *gram_right;
    double *mix, *trial_move, *columns, *off;
    int32_t *bound, *touched, *extra;
    int32_t *span; /* each limit row that is no bound: where it is not zero, lo then hi */
    int32_t *spans; /* each column of newton_step's normal matrices: where it is not zero */
    uint8_t *free, *held;
    int32_t columns_used; /* F's columns in the last newton_step (compact_factor) */
} SettleWork;

/* Limit row i of d at x (relax's rows_in @ x, one row): a bound's row (bound_of ≥ 0: one
 * entry, ±1) by its one entry, the same as the whole dot product; another row by the dot
 * product over its span alone, to the bit (a limit polygon's row holds two variables). */
static double settle_row(const Descent *d, const SettleWork *w, int32_t i, const double *x) {
    const int32_t n = d->objective->n;
    const double *row = d->a + (int64_t)n * i;
    const int32_t bound = w->bound[i];
    return bound >= 0 ? row[bound] * x[bound]
                      : dot_within(n, row, x, w->span[2 * i], w->span[2 * i + 1]);
}

/* C = Σ m (φ − τ)² (relax.ComfortAim.value). */
static double comfort_value(int32_t n, const Settle *c, const double *phi, double *scratch) {
    for (int32_t j = 0; j < n; ++j) {
        const double off = phi[j] - c->target[j];
        scratch[j] = off * off;
    }
    return dot(n, c->masses, scratch);
}

/* np.clip(point, lower, upper) with lower and upper the bounds among the rows (Rows.box):
 * every lower bound first, then every upper one. */
static void clip_to_bounds(const Descent *d, const int32_t *bound, double *point) {
    const int32_t n = d->objective->n;
    for (int pass = 0; pass < 2; ++pass) {
        for (int32_t i = 0; i < d->rows; ++i) {
            const int32_t v = bound[i];
            if (v < 0) {
                continue;
            }
            const double sign = d->a[(int64_t)n * i + v];
            if (pass == 0 && sign > 0.0 && point[v] < d->b[i]) {
                point[v] = d->b[i];
            } else if (pass == 1 && sign < 0.0 && point[v] > -d->b[i]) {
                point[v] = -d->b[i];
            }
        }
    }
}

static int32_t damped_solve(int32_t p, double *s, const double *right, double gram, double *x);

/* Whether each variable is off its bounds at point (within them): into free. */
static void off_bounds(const Descent *d, const int32_t *bound, const double *point,
                       uint8_t *free) {
    const int32_t n = d->objective->n;
    for (int32_t j = 0; j < n; ++j) {
        free[j] = 1;
    }
    for (int32_t i = 0; i < d->rows; ++i) {
        const int32_t v = bound[i];
        if (v < 0) {
            continue;
        }
        const double sign = d->a[(int64_t)n * i + v];
        if ((sign > 0.0 && point[v] <= d->b[i]) || (sign < 0.0 && point[v] >= -d->b[i])) {
            free[v] = 0;
        }
    }
}

/* Row i of the rounds' hard rows: equality row −i − 1 for i < 0, else limit row i. */
static const double *hard_row(const Descent *d, const Settle *c, int32_t i) {
    const int32_t n = d->objective->n;
    return i < 0 ? c->a_eq + (int64_t)n * (-i - 1) : d->a + (int64_t)n * i;
}

/* x = (B Bᵀ + μ I)⁻¹ r (damped_solve's μ) for B the count hard rows listed (hard_row), each
 * with its entries zeroed where mask is 0; gram (count, count) is overwritten. Returns
 * damped_solve's answer. */
static int32_t masked_solve(const Descent *d, const Settle *c, int32_t count,
                            const int32_t *listed, const uint8_t *mask, const double *right,
                            double *gram, double *x) {
    const int32_t n = d->objective->n;
    for (int32_t a = 0; a < count; ++a) {
        const double *ra = hard_row(d, c, listed[a]);
        for (int32_t b = 0; b <= a; ++b) {
            const double *rb = hard_row(d, c, listed[b]);
            double sum = 0.0;
            for (int32_t j = 0; j < n; ++j) {
                sum += mask[j] ? ra[j] * rb[j] : 0.0;
            }
            gram[(int64_t)count * a + b] = gram[(int64_t)count * b + a] = sum;
        }
    }
    return damped_solve(count, gram, right, c->gram, x);
}

/* v less its part across the count hard rows listed, along the variables mask keeps:
 * v −= Bᵀ y with y = (B Bᵀ + μ I)⁻¹ right (masked_solve; gram overwritten), on mask's
 * variables alone. Returns masked_solve's answer; v is left as it was where that fails. */
static int32_t off_hard_rows(const Descent *d, const Settle *c, int32_t count,
                             const int32_t *listed, const uint8_t *mask, const double *right,
                             double *gram, double *y, double *v) {
    const int32_t n = d->objective->n;
    if (masked_solve(d, c, count, listed, mask, right, gram, y) != 0) {
        return -1;
    }
    for (int32_t j = 0; j < n; ++j) {
        if (!mask[j]) {
            continue;
        }
        double sum = 0.0;
        for (int32_t a = 0; a < count; ++a) {
            sum += hard_row(d, c, listed[a])[j] * y[a];
        }
        v[j] -= sum;
    }
    return 0;
}

/* relax._within: point clipped to its bounds, then projected at once onto the equalities and
 * every row that is no bound and that it is past, along the variables off their bounds,
 * clipped again. */
static void within_limits(const Descent *d, const Settle *c, SettleWork *w, double *point) {
    const int32_t n = d->objective->n;
    clip_to_bounds(d, w->bound, point);
    int32_t past = 0;
    for (int32_t e = 0; e < c->equalities; ++e) {
        w->right[past] = dot(n, c->a_eq + (int64_t)n * e, point) - c->b_eq[e];
        w->extra[past++] = -e - 1;
    }
    for (int32_t i = 0; i < d->rows; ++i) {
        if (w->bound[i] < 0) {
            const double side = settle_row(d, w, i, point) - d->b[i];
            if (side < 0.0) {
                w->right[past] = side;
                w->extra[past++] = i;
            }
        }
    }
    if (past) {
        off_bounds(d, w->bound, point, w->free);
        off_hard_rows(d, c, past, w->extra, w->free, w->right, w->s, w->back_y, point);
    }
    clip_to_bounds(d, w->bound, point);
}

/* relax._along_equalities: move less its part across the equality rows (none: as it is). */
static void along_equalities(const Descent *d, const Settle *c, SettleWork *w, double *move) {
    const int32_t n = d->objective->n, e = c->equalities;
    if (!e) {
        return;
    }
    for (int32_t a = 0; a < e; ++a) {
        w->extra[a] = -a - 1;
        w->right[a] = dot(n, c->a_eq + (int64_t)n * a, move);
    }
    for (int32_t j = 0; j < n; ++j) {
        w->free[j] = 1;
    }
    off_hard_rows(d, c, e, w->extra, w->free, w->right, w->s, w->back_y, move);
}

/* relax._cut: step cut at the first row it meets from the rows' slack, the held ones not. */
static void cut_step(const Descent *d, const SettleWork *w, const double *slack,
                     const uint8_t *held, double push, double *rates, double *step) {
    const int32_t n = d->objective->n;
    double cut = INFINITY;
    for (int32_t i = 0; i < d->rows; ++i) {
        rates[i] = settle_row(d, w, i, step);
        if (rates[i] < -push && !(held && held[i])) {
            const double room = (slack[i] > 0.0 ? slack[i] : 0.0) / -rates[i];
            cut = room < cut ? room : cut;
        }
    }
    if (cut < 1.0) {
        for (int32_t j = 0; j < n; ++j) {
            step[j] *= cut;
        }
    }
}

/* The lower factor L (3, 3) of a positive semidefinite M = L Lᵀ, row-major: a column whose
 * pivot is below 1e-12 of M's trace is left zero (M's null space). */
static void semidefinite_cholesky(const double *mat, double *low) {
    const double floor = 1e-12 * (mat[0] + mat[4] + mat[8]);
    for (int i = 0; i < 9; ++i) {
        low[i] = 0.0;
    }
    for (int col = 0; col < 3; ++col) {
        double pivot = mat[4 * col];
        for (int q = 0; q < col; ++q) {
            pivot -= low[3 * col + q] * low[3 * col + q];
        }
        if (!(pivot > floor)) {
            continue;
        }
        low[4 * col] = sqrt(pivot);
        for (int row = col + 1; row < 3; ++row) {
            double sum = mat[3 * row + col];
            for (int q = 0; q < col; ++q) {
                sum -= low[3 * row + q] * low[3 * col + q];
            }
            low[3 * row + col] = sum / low[4 * col];
        }
    }
}

/* compact_factor's columns of leaf e's axes (vectors blocks·leaves: its x and y axes at e +
 * leaves and e + 2·leaves, their weights √(2w) alike), moved by the variables that move
 * part own, into f (column-major, n rows); their count, none below blocks 3. */
static int32_t axis_columns(const Descent *d, const double *weights, int32_t leaves, int32_t e,
                            int64_t own, double *f) {
    const Objective *o = d->objective;
    const int32_t n = o->n, m = o->m;
    const double *vectors = d->pose, *axes = d->pose + 9 * (int64_t)leaves;
    double mat[9] = {0.0}, low[9];
    for (int32_t b = 1; b < d->blocks; ++b) {
        const int64_t i = (int64_t)b * leaves + e;
        const double *v = vectors + 3 * i, c = weights[i] * weights[i];
        const double norm = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
        for (int r = 0; r < 3; ++r) {
            for (int q = 0; q < 3; ++q) {
                mat[3 * r + q] += c * ((r == q ? norm : 0.0) - v[r] * v[q]);
            }
        }
    }
    if (!(mat[0] + mat[4] + mat[8] > 0.0)) {
        return 0;
    }
    semidefinite_cholesky(mat, low);
    int32_t count = 0;
    for (int col = 0; col < 3; ++col) {
        if (low[4 * col] == 0.0) {
            continue;
        }
        double *column = f + (int64_t)n * count;
        for (int32_t j = 0; j < n; ++j) {
            const double *u = axes + 3 * j;
            const double scale = o->variable_rotation[j] ? d->moves[(int64_t)j * m + own] : 0.0;
            column[j] = scale * (u[0] * low[col] + u[1] * low[3 + col] + u[2] * low[6 + col]);
        }
        count += 1;
    }
    return count;
}

/* compact_factor where a leaf is a centre of mass or a goal is a plane's (leaf_objective),
 * from the pose at the descent's last point (the parts' points after the gradient). A
 * leaf's point moves by Σ sₖ mₖⱼ (u_j × (rₖ − q_j)) = u_j × (R − S q_j) for a rotation j,
 * R = Σ sₖ mₖⱼ rₖ, S = Σ sₖ mₖⱼ (mₖⱼ: whether j moves part k), and by S u_j for a
 * translation; a squared distance keeps those three columns, a plane's goal the one
 * column ν·J (curvature 2ννᵀ), a half-space's only where the point is outside (as
 * HalfSpace.stack_curvature). A plain leaf's axes give compact_factor's columns; a
 * centre of mass's axes are the world's, moved by nothing. */
static int32_t leaf_factor(const Descent *d, const double *weights, double *f) {
    const Objective *o = d->objective;
    const int32_t n = o->n, m = o->m, leaves = o->leaves;
    const double *points = d->pose, *axes = d->pose + 9 * (int64_t)leaves;
    const double *pivots = axes + 3 * (int64_t)n, *at = pivots + 4 * (int64_t)n;
    const uint8_t *rotation = o->variable_rotation;
    int32_t count = 0;
    for (int32_t e = 0; e < leaves; ++e) {
        const int kind = d->faces != 0 ? (int)d->faces[4 * e + 3] : 0;
        const int massed = o->shares != 0 && o->massed[e];
        const int64_t own = o->shares != 0 ? o->first[e] : e;
        const double *p = points + 3 * e;
        const double weight = kind == 3 ? weights[2 * (int64_t)leaves + e] : weights[e];
        int take = weight != 0.0;
        double way[3] = {0.0, 0.0, 0.0}, distance = 0.0;
        if (take && kind == 3) { /* Aim.stack_curvature: none where the point is on the goal */
            const double *g = d->goal + 3 * e;
            const double to[3] = {g[0] - p[0], g[1] - p[1], g[2] - p[2]};
            distance = sqrt(to[0] * to[0] + to[1] * to[1] + to[2] * to[2]);
            take = distance > AIM_TINY;
            if (take) {
                way[0] = to[0] / distance, way[1] = to[1] / distance, way[2] = to[2] / distance;
            }
        }
        if (take && kind == 2) {
            const double *g = d->goal + 3 * e, *normal = d->faces + 4 * e;
            take = (p[0] - g[0]) * normal[0] + (p[1] - g[1]) * normal[1] +
                       (p[2] - g[2]) * normal[2] <
                   0.0;
        }
        if (take) {
            double *c0 = f + (int64_t)n * count, *c1 = c0 + n, *c2 = c1 + n;
            for (int32_t j = 0; j < n; ++j) {
                const double *u = axes + 3 * j, *q = pivots + 3 * j;
                double share = 0.0, r[3] = {0.0, 0.0, 0.0};
                if (massed) {
                    const double *s = o->shares + (int64_t)m * e, *moves = d->moves + (int64_t)j * m;
                    for (int32_t k = 0; k < m; ++k) {
                        const double sk = s[k] * moves[k];
                        if (sk != 0.0) {
                            share += sk;
                            r[0] += sk * at[3 * k];
                            r[1] += sk * at[3 * k + 1];
                            r[2] += sk * at[3 * k + 2];
                        }
                    }
                } else {
                    share = d->moves[(int64_t)j * m + own];
                    r[0] = share * p[0], r[1] = share * p[1], r[2] = share * p[2];
                }
                if (share == 0.0) {
                    c0[j] = c1[j] = c2[j] = 0.0;
                } else if (!rotation[j]) {
                    c0[j] = weight * (share * u[0]);
                    c1[j] = weight * (share * u[1]);
                    c2[j] = weight * (share * u[2]);
                } else {
                    const double a[3] = {r[0] - share * q[0], r[1] - share * q[1],
                                         r[2] - share * q[2]};
                    c0[j] = weight * (u[1] * a[2] - u[2] * a[1]);
                    c1[j] = weight * (u[2] * a[0] - u[0] * a[2]);
                    c2[j] = weight * (u[0] * a[1] - u[1] * a[0]);
                }
            }
            if (kind == 3) { /* R = c(w − y): −(I − wwᵀ)/‖d‖ of the point's move, − the axis's */
                const double *v = points + 6 * (int64_t)leaves + 3 * e;
                for (int32_t j = 0; j < n; ++j) {
                    const double move[3] = {c0[j], c1[j], c2[j]};
                    const double along = way[0] * move[0] + way[1] * move[1] + way[2] * move[2];
                    double turn[3] = {0.0, 0.0, 0.0};
                    if (!massed && rotation[j]) { /* u × y, as the point's share moves it */
                        const double *u = axes + 3 * j;
                        const double s = weight * d->moves[(int64_t)j * m + own];
                        turn[0] = s * (u[1] * v[2] - u[2] * v[1]);
                        turn[1] = s * (u[2] * v[0] - u[0] * v[2]);
                        turn[2] = s * (u[0] * v[1] - u[1] * v[0]);
                    }
                    c0[j] = -(move[0] - along * way[0]) / distance - turn[0];
                    c1[j] = -(move[1] - along * way[1]) / distance - turn[1];
                    c2[j] = -(move[2] - along * way[2]) / distance - turn[2];
                }
                count += 3;
            } else if (kind != 0) {
                const double *normal = d->faces + 4 * e;
                for (int32_t j = 0; j < n; ++j) {
                    c0[j] = normal[0] * c0[j] + normal[1] * c1[j] + normal[2] * c2[j];
                }
                count += 1;
            } else {
                count += 3;
            }
        }
        if (!massed && kind != 3) {
            count += axis_columns(d, weights, leaves, e, own, f + (int64_t)n * count);
        }
    }
    scale_columns(d, count, f);
    return count;
}

/* The goals' Gauss–Newton factor over φ in as few columns as give the same F Fᵀ, into f
 * (column-major, n rows); their count. rk_factor's F has three columns per goal vector: an
 * effector's axis goals add two vectors whose six columns, (u_j × v) scaled, have rank
 * three at most, and a position-only effector's axis columns are zero where other
 * effectors are oriented. Here an effector's point keeps its three columns (none at
 * weight 0), and its axes give the columns u_j · L_b, L Lᵀ = Σ_v c_v (|v|² I − v vᵀ) (c_v
 * twice the vector's weight): (u_j × v)·(u_l × v) = u_jᵀ (|v|² I − v vᵀ) u_l, so F Fᵀ is
 * kept, with no zero column. weights holds √(2 w) per goal vector. */
static int32_t compact_factor(const Descent *d, const double *weights, double *f) {
    const Objective *o = d->objective;
    if (o->shares != 0 || d->faces != 0) {
        return leaf_factor(d, weights, f);
    }
    const int32_t n = o->n, m = o->m;
    const double *vectors = d->pose, *axes = d->pose + 9 * (int64_t)m;
    const double *pivots = axes + 3 * (int64_t)n;
    const uint8_t *rotation = o->variable_rotation;
    int32_t count = 0;
    for (int32_t e = 0; e < m; ++e) {
        if (weights[e] != 0.0) { /* the point's three columns, as rk_factor's */
            double *c0 = f + (int64_t)n * count, *c1 = c0 + n, *c2 = c1 + n;
            const double *v = vectors + 3 * (int64_t)e;
            for (int32_t j = 0; j < n; ++j) {
                const double *u = axes + 3 * j, *q = pivots + 3 * j;
                const double scale = d->moves[(int64_t)j * m + e] * weights[e];
                if (scale == 0.0) {
                    c0[j] = c1[j] = c2[j] = 0.0;
                } else if (!rotation[j]) {
                    c0[j] = scale * u[0];
                    c1[j] = scale * u[1];
                    c2[j] = scale * u[2];
                } else {
                    const double r[3] = {v[0] - q[0], v[1] - q[1], v[2] - q[2]};
                    c0[j] = scale * (u[1] * r[2] - u[2] * r[1]);
                    c1[j] = scale * (u[2] * r[0] - u[0] * r[2]);
                    c2[j] = scale * (u[0] * r[1] - u[1] * r[0]);
                }
            }
            count += 3;
        }
        count += axis_columns(d, weights, m, e, e, f + (int64_t)n * count);
    }
    scale_columns(d, count, f);
    return count;
}

/* relax._newton_step at phi (gradient there): the step into step, y into y (F's part
 * first, then the held rows that are no bound). Returns 0, or RK_GENERAL where a normal
 * matrix is not positive definite. */
static int32_t newton_step(Descent *d, const Settle *c, const double *phi,
                           const double *gradient, int comfort, SettleWork *w, double *step,
                           double *y) {
    const Objective *o = d->objective;
    const int32_t n = o->n, m = o->leaves;
    if (!d->posed || memcmp(d->posed_at, phi, sizeof(double) * (size_t)n) != 0) {
        descent_value(d, phi, w->trial_gradient); /* the pose at phi, for F */
    }
    double *weights = w->residual; /* √(2 w), then overwritten */
    for (int32_t e = 0; e < d->blocks * m; ++e) {
        weights[e] = sqrt(d->weight[e] * 2.0);
    }
    double *f = w->factor;
    const int32_t k = compact_factor(d, weights, f);
    w->columns_used = k;
    int32_t touched = 0;
    for (int32_t i = 0; i < d->rows; ++i) {
        w->slack[i] = settle_row(d, w, i, phi) - d->b[i];
        w->held[i] = 0;
        if (w->slack[i] <= 1e-12) {
            w->touched[touched++] = i;
        }
    }
    /* relax._off_rows: g less its part across the equalities and the touched rows, a
     * bound's variable left out */
    int32_t hard = 0;
    for (int32_t j = 0; j < n; ++j) {
        w->off[j] = gradient[j];
        w->free[j] = 1;
    }
    for (int32_t e = 0; e < c->equalities; ++e) {
        w->extra[hard++] = -e - 1;
    }
    for (int32_t t = 0; t < touched; ++t) {
        const int32_t i = w->touched[t];
        if (w->bound[i] >= 0) {
            w->off[w->bound[i]] = 0.0;
            w->free[w->bound[i]] = 0;
        } else {
            w->extra[hard++] = i;
        }
    }
    if (hard) {
        for (int32_t a = 0; a < hard; ++a) {
            const double *row = hard_row(d, c, w->extra[a]);
            double sum = 0.0;
            for (int32_t j = 0; j < n; ++j) {
                sum += w->free[j] ? row[j] * w->off[j] : 0.0;
            }
            w->right[a] = sum;
        }
        if (off_hard_rows(d, c, hard, w->extra, w->free, w->right, w->s, y, w->off) != 0) {
            return RK_GENERAL;
        }
    }
    /* each column's span (a goal's columns are zero on the variables that do not move it),
     * and the products of two columns over where both spans meet, to the bit */
    int32_t *lo = w->spans, *hi = w->spans + k + c->equalities + d->rows;
    for (int32_t a = 0; a < k; ++a) { /* c = (FᵀF)⁻¹ Fᵀ g, damped */
        support(n, f + (int64_t)n * a, lo + a, hi + a);
        for (int32_t b = 0; b <= a; ++b) {
            const int32_t from = lo[a] > lo[b] ? lo[a] : lo[b], to = hi[a] < hi[b] ? hi[a] : hi[b];
            const double v = dot_within(n, f + (int64_t)n * a, f + (int64_t)n * b, from, to);
            w->s[(int64_t)k * a + b] = w->s[(int64_t)k * b + a] = v;
        }
        w->right[a] = dot_within(n, f + (int64_t)n * a, w->off, lo[a], hi[a]);
    }
    if (damped_solve(k, w->s, w->right, c->gram, w->residual) != 0) {
        return RK_GENERAL;
    }
    for (int32_t j = 0; j < n; ++j) {
        w->pull[j] = comfort ? c->masses[j] * (phi[j] - c->target[j]) : 0.0;
        w->free[j] = 1;
    }
    /* the equalities' columns k, …, k + e − 1 after F's, then the held rows that are no
     * bound (extra of them) */
    const int32_t e = c->equalities, ke = k + e;
    int32_t extra = 0;
    int held_any = 0; /* whether a variable is held: else F's columns and spans stand */
    for (;;) {
        const int32_t p = ke + extra;
        for (int32_t j = 0; j < n; ++j) {
            w->inverse[j] = w->free[j] ? 1.0 / (c->masses[j] + c->damping) : 0.0;
            w->move[j] = w->inverse[j] * w->pull[j];
            held_any |= !w->free[j];
        }
        for (int32_t a = held_any ? 0 : k; a < p; ++a) { /* the held variables' entries zeroed */
            double *column = a < k ? f + (int64_t)n * a : w->columns + (int64_t)n * (a - k);
            const double *row = a < k    ? column
                                : a < ke ? c->a_eq + (int64_t)n * (a - k)
                                         : d->a + (int64_t)n * w->extra[a - ke];
            for (int32_t j = 0; j < n; ++j) {
                column[j] = w->free[j] ? row[j] : 0.0;
            }
            support(n, column, lo + a, hi + a);
        }
        const int32_t body = n - n % 8;
        for (int32_t a = 0; a < p; ++a) { /* S = Aᵀ H⁻¹ A, r = Aᵀ H⁻¹ pull − (c, 0) */
            const double *ca = a < k ? f + (int64_t)n * a : w->columns + (int64_t)n * (a - k);
            /* H⁻¹ a where dot_within reads it: its span, widened to whole blocks of eight
             * below the tail (elsewhere a is zero, and every product with it is read
             * through a's own span) */
            const int32_t from = lo[a] - lo[a] % 8;
            const int32_t to = hi[a] < body ? hi[a] + (8 - hi[a] % 8) % 8 : n;
            for (int32_t j = from; j < to; ++j) {
                w->trial[j] = ca[j] * w->inverse[j];
            }
            for (int32_t b = 0; b <= a; ++b) {
                const double *cb =
                    b < k ? f + (int64_t)n * b : w->columns + (int64_t)n * (b - k);
                const int32_t from = lo[a] > lo[b] ? lo[a] : lo[b];
                const int32_t to = hi[a] < hi[b] ? hi[a] : hi[b];
                const double v = dot_within(n, w->trial, cb, from, to);
                w->s[(int64_t)p * a + b] = w->s[(int64_t)p * b + a] = v;
            }
            const double pulled = dot_within(n, ca, w->move, lo[a], hi[a]);
            w->right[a] = pulled - (a < k ? w->residual[a] : 0.0);
        }
        if (damped_solve(p, w->s, w->right, c->gram, y) != 0) {
            return RK_GENERAL;
        }
        /* A y: each entry's products summed in the columns' order, over their spans alone
         * (outside one a column adds an exact zero) */
        for (int32_t j = 0; j < n; ++j) {
            step[j] = 0.0;
        }
        for (int32_t a = 0; a < p; ++a) {
            const double *ca = a < k ? f + (int64_t)n * a : w->columns + (int64_t)n * (a - k);
            for (int32_t j = lo[a]; j < hi[a]; ++j) {
                step[j] += ca[j] * y[a];
            }
        }
        for (int32_t j = 0; j < n; ++j) {
            step[j] = w->inverse[j] * (step[j] - w->pull[j]);
        }
        int32_t pushed = 0;
        for (int32_t t = 0; t < touched; ++t) {
            const int32_t i = w->touched[t];
            const double rate = settle_row(d, w, i, step);
            if (w->held[i] || !(rate < -c->push)) {
                continue;
            }
            w->held[i] = 1;
            if (w->bound[i] >= 0) {
                w->free[w->bound[i]] = 0;
            } else {
                w->extra[extra++] = i;
            }
            pushed = 1;
        }
        if (!pushed) {
            break;
        }
    }
    cut_step(d, w, w->slack, w->held, c->push, w->rates, step);
    return 0;
}

/* relax._mixed (damped): the mixed step from the h rounds kept in w->points and w->steps (oldest
 * first) and this one's; 0 where there is one, else −1. */
static int32_t anderson(int32_t n, int32_t h, const double *phi, const Settle *c,
                        SettleWork *w) {
    if (h == 0) {
        return -1;
    }
    /* column l: move_l = point_{l+1} − point_l, turn_l = step_{l+1} − step_l, with the last
     * point and step this round's; turns into gram's products */
    for (int32_t a = 0; a < h; ++a) {
        const double *sa = w->steps + (int64_t)n * a;
        const double *sa1 = a + 1 < h ? w->steps + (int64_t)n * (a + 1) : w->step;
        for (int32_t b = 0; b <= a; ++b) {
            const double *sb = w->steps + (int64_t)n * b;
            const double *sb1 = b + 1 < h ? w->steps + (int64_t)n * (b + 1) : w->step;
            double sum = 0.0;
            for (int32_t j = 0; j < n; ++j) {
                sum += (sa1[j] - sa[j]) * (sb1[j] - sb[j]);
            }
            w->gram[(int64_t)h * a + b] = w->gram[(int64_t)h * b + a] = sum;
        }
        double sum = 0.0;
        for (int32_t j = 0; j < n; ++j) {
            sum += (sa1[j] - sa[j]) * w->step[j];
        }
        w->gram_right[a] = sum;
    }
    if (damped_solve(h, w->gram, w->gram_right, c->gram, w->mix) != 0) {
        return -1;
    }
    int any = 0;
    for (int32_t j = 0; j < n; ++j) {
        double sum = 0.0;
        for (int32_t a = 0; a < h; ++a) {
            const double *pa = w->points + (int64_t)n * a;
            const double next_point = a + 1 < h ? w->points[(int64_t)n * (a + 1) + j] : phi[j];
            const double next_step = a + 1 < h ? w->steps[(int64_t)n * (a + 1) + j] : w->step[j];
            sum += ((next_point - pa[j]) + (next_step - w->steps[(int64_t)n * a + j])) * w->mix[a];
        }
        w->mixed[j] = w->step[j] - sum;
        if (!isfinite(w->mixed[j])) {
            return -1;
        }
        any |= w->mixed[j] != 0.0;
    }
    return any ? 0 : -1;
}

/* relax.settle: comfort's Newton rounds and the steps onto the goals, for a descent of
 * the Objective's goals with no equality rows: from phi (gradient and G/w = out[0] there), rounds toward
 * comfort on the goals' Gauss–Newton plane, each kept while G/w ≤ nearby and the merit
 * C + ν √(2 (G/w − ceiling)) falls, then steps onto the goals alone while G/w > ceiling.
 * The rounds end after max_iterations rounds or when the time (seconds from now; < 0:
 * none) is spent.
 *
 * phi, gradient: the end on return; out (4): G/w, evaluations, iterations and C there.
 * work holds (k + rows)n + (k + rows)² + k + 3(k + rows) + 12n + 2·rows + 2·depth·n +
 * depth² + 2·depth doubles, iwork 3·rows int32 and rows + n bytes (as int32 words:
 * ⌈(rows + n)/4⌉ more). Returns RK_SETTLED (a round kept), RK_UNSETTLED (none), or
 * RK_GENERAL where a normal matrix is not positive definite (the rounds are then
 * relax's from the start). */
RK_EXPORT int32_t rk_settle(Descent *d, const Settle *c, double *phi, double *gradient,
                            double *out, int32_t max_iterations, double seconds, double *work,
                            int32_t *iwork) {
    const int32_t n = d->objective->n, k = 3 * d->blocks * d->objective->leaves, rows = d->rows;
    const int32_t depth = c->depth;
    const double began = seconds >= 0.0 ? monotonic_seconds() : 0.0;
    SettleWork w;
    w.columns_used = 0;
    double *at = work;
    /* F's columns, the equalities' and the held rows' at most */
    const int64_t p = (int64_t)k + rows + c->equalities;
    w.factor = at, at += (int64_t)k * n;
    w.columns = at, at += ((int64_t)rows + c->equalities) * n;
    w.s = at, at += p * p;
    w.residual = at, at += k;
    w.right = at, at += p;
    w.y = at, at += p;
    w.back_y = at, at += p;
    w.pull = at, at += n;
    w.inverse = at, at += n;
    w.step = at, at += n;
    w.back = at, at += n;
    w.move = at, at += n;
    w.trial = at, at += n;
    w.trial_gradient = at, at += n;
    w.mixed = at, at += n;
    w.trial_move = at, at += n;
    w.off = at, at += n;
    double *scratch = at;
    at += n;
    double *point = at;
    at += n;
    w.slack = at, at += rows;
    w.rates = at, at += rows;
    w.points = at, at += (int64_t)depth * n;
    w.steps = at, at += (int64_t)depth * n;
    w.gram = at, at += (int64_t)depth * depth;
    w.gram_right = at, at += depth;
    w.mix = at;
    w.bound = iwork;
    w.touched = iwork + rows;
    w.extra = iwork + 2 * (int64_t)rows;
    w.free = (uint8_t *)(iwork + 3 * (int64_t)rows + c->equalities);
    w.held = w.free + n;
    w.span = iwork + 3 * (int64_t)rows + c->equalities + ((int64_t)rows + n + 3) / 4;
    w.spans = w.span + 2 * (int64_t)rows;
    memcpy(w.bound, d->row_bound, sizeof(int32_t) * (size_t)rows);
    memcpy(w.span, d->row_span, sizeof(int32_t) * 2 * (size_t)rows);
    double value = out[0];
    double comfort = comfort_value(n, c, phi, scratch);
    double radius = c->radius, penalty = 0.0;
    int32_t iterations = 0, evaluations = 0, kept_any = 0, history = 0;
    int whole = 1; /* the last round kept its mix or its step at the trust radius */
    for (int32_t round = 0; round < c->rounds; ++round) {
        const int32_t status = newton_step(d, c, phi, gradient, 1, &w, w.step, w.y);
        if (status != 0) {
            return status;
        }
        iterations += 1;
        double largest = 0.0;
        for (int32_t j = 0; j < n; ++j) {
            largest = fabs(w.step[j]) > largest ? fabs(w.step[j]) : largest;
        }
        if (largest <= c->small) {
            break;
        }
        const double norm = sqrt(dot(w.columns_used, w.y, w.y));
        penalty = c->penalty * norm > penalty ? c->penalty * norm : penalty;
        const double off = value - c->ceiling;
        const double merit = comfort + penalty * sqrt(2.0 * (off > 0.0 ? off : 0.0));
        const int mixed = whole && anderson(n, history, phi, c, &w) == 0;
        if (mixed) { /* on the equalities, cut from the slack at phi newton_step found */
            along_equalities(d, c, &w, w.mixed);
            cut_step(d, &w, w.slack, 0, c->push, w.rates, w.mixed);
        }
        double widest = 0.0;
        if (mixed) {
            for (int32_t j = 0; j < n; ++j) {
                widest = fabs(w.mixed[j]) > widest ? fabs(w.mixed[j]) : widest;
            }
        }
        const int first = mixed && widest > 0.0;
        const double shrink = radius / largest < 1.0 ? radius / largest : 1.0;
        int32_t kept = -1;
        double kept_merit = 0.0, kept_comfort = 0.0, kept_value = 0.0;
        for (int32_t t = 0; t < c->halvings + 1 + first; ++t) {
            double *move = w.trial_move, length = 0.0;
            if (first && t == 0) {
                const double scale = radius / widest < 1.0 ? radius / widest : 1.0;
                for (int32_t j = 0; j < n; ++j) {
                    move[j] = w.mixed[j] * scale;
                }
            } else {
                const double scale = shrink * pow(0.5, (double)(t - first));
                for (int32_t j = 0; j < n; ++j) {
                    move[j] = w.step[j] * scale;
                }
            }
            for (int32_t j = 0; j < n; ++j) {
                point[j] = phi[j] + move[j];
                length = fabs(move[j]) > length ? fabs(move[j]) : length;
            }
            const double promised = merit - comfort_value(n, c, point, scratch);
            within_limits(d, c, &w, point);
            double trial_value = descent_value(d, point, w.trial_gradient);
            evaluations += 1;
            if (trial_value > c->ceiling) { /* a second-order correction onto the goals */
                const int32_t back = newton_step(d, c, point, w.trial_gradient, 0, &w, w.back,
                                                 w.back_y);
                if (back != 0) {
                    return back;
                }
                for (int32_t j = 0; j < n; ++j) {
                    point[j] += w.back[j];
                }
                within_limits(d, c, &w, point);
                trial_value = descent_value(d, point, w.trial_gradient);
                evaluations += 1;
            }
            const double lower = comfort_value(n, c, point, scratch);
            const double trial_off = trial_value - c->ceiling;
            const double trial_merit =
                lower + penalty * sqrt(2.0 * (trial_off > 0.0 ? trial_off : 0.0));
            if (trial_value <= c->nearby && trial_merit < merit) {
                kept = t;
                kept_merit = trial_merit;
                kept_comfort = lower;
                kept_value = trial_value;
                /* the trust radius: the move kept where a longer one was refused, then by
                   the gain against the tangent model's promise */
                whole = t <= first;
                if (!whole) {
                    radius = length;
                }
                if (merit - trial_merit < 0.25 * promised) {
                    radius = 0.5 * length;
                } else if (merit - trial_merit > 0.75 * promised) {
                    radius = radius > 2.0 * length ? radius : 2.0 * length;
                }
                break;
            }
        }
        if (kept < 0) {
            break;
        }
        if (depth > 0 && history == depth) { /* drop the oldest round */
            memmove(w.points, w.points + n, sizeof(double) * (size_t)n * (size_t)(depth - 1));
            memmove(w.steps, w.steps + n, sizeof(double) * (size_t)n * (size_t)(depth - 1));
            history -= 1;
        }
        if (depth > 0) {
            memcpy(w.points + (int64_t)n * history, phi, sizeof(double) * (size_t)n);
            memcpy(w.steps + (int64_t)n * history, w.step, sizeof(double) * (size_t)n);
            history += 1;
        }
        keep(n, point, w.trial_gradient, phi, gradient);
        value = kept_value;
        comfort = kept_comfort;
        kept_any = 1;
        if (merit - kept_merit <= c->rounding * comfort || iterations >= max_iterations ||
            (seconds >= 0.0 && monotonic_seconds() - began >= seconds)) {
            break;
        }
    }
    if (kept_any) {
        for (int32_t p = 0; p < c->projections && value > c->ceiling; ++p) {
            const int32_t status = newton_step(d, c, phi, gradient, 0, &w, w.back, w.back_y);
            if (status != 0) {
                return status;
            }
            for (int32_t j = 0; j < n; ++j) {
                point[j] = phi[j] + w.back[j];
            }
            within_limits(d, c, &w, point);
            const double projected = descent_value(d, point, w.trial_gradient);
            evaluations += 1;
            if (!(projected < value)) { /* a step that raises G is not kept */
                break;
            }
            keep(n, point, w.trial_gradient, phi, gradient);
            value = projected;
        }
        comfort = comfort_value(n, c, phi, scratch);
        pose_at_end(d, phi, w.trial_gradient);
    }
    out[0] = value;
    out[1] = evaluations;
    out[2] = iterations;
    out[3] = comfort;
    return kept_any ? RK_SETTLED : RK_UNSETTLED;
}

/* relax._kept_rounds' active rows at phi and their multipliers, where they are bounds alone
 * on distinct variables and the rounds keep no equality row, or where no row is active:
 * each row with a slack of at most 1e-9 (projection.active_rows), in turn, its multiplier
 * sign · g[variable], and the norm of g with those variables zeroed, less its part on the
 * rounds' equality rows (c's, orthonormal) where they have some. A row that is no bound
 * within 1e-6 of its limit (whose dense product's rounding Python's own test reads) leaves
 * them to Python, as rows active beside equality rows do (a least-squares fit). Returns
 * their count, or −1 where Python finds them. */
static int32_t kept_rows(const Descent *d, const Settle *c, const double *phi,
                         const double *gradient, int32_t *active, double *fit,
                         double *projected, uint8_t *seen, double *off) {
    const int32_t n = d->objective->n;
    memset(seen, 0, (size_t)n);
    int32_t count = 0;
    for (int32_t i = 0; i < d->rows; ++i) {
        const double *row = d->a + (int64_t)n * i;
        const int32_t v = d->row_bound[i];
        if (v < 0) {
            const int32_t lo = d->row_span[2 * i], hi = d->row_span[2 * i + 1];
            if (dot_within(n, row, phi, lo, hi) - d->b[i] <= 1e-6) {
                return -1;
            }
            continue;
        }
        if (row[v] * phi[v] - d->b[i] <= 1e-9) {
            if (seen[v] || c->equalities) {
                return -1; /* two bounds on one variable, or bounds beside equalities */
            }
            seen[v] = 1;
            active[count] = i;
            fit[count] = row[v] * gradient[v];
            count += 1;
        }
    }
    for (int32_t j = 0; j < n; ++j) {
        off[j] = seen[j] ? 0.0 : gradient[j];
    }
    for (int32_t l = 0; l < c->equalities; ++l) { /* off −= Eᵀ (E g) */
        const double *row = c->a_eq + (int64_t)n * l;
        const double along = dot(n, row, gradient);
        for (int32_t j = 0; j < n; ++j) {
            off[j] -= along * row[j];
        }
    }
    *projected = sqrt(dot(n, off, off));
    return count;
}

/* goldfarb.Goldfarb.quick's kernel part in one call: rk_gauss_newton_descent from phi, then,
 * where it meets the goals and comfort is given (c not NULL), comfort's rounds (rk_settle)
 * from its end with the iterations and the time left, their ceiling and nearby made from its
 * G/w as relax._newton_rounds makes them (ceiling = G/w · (1 + hold_share) + hold, nearby =
 * ceiling + near), and where a round is kept, relax._kept_rounds' rows at the rounds' end
 * (kept_rows, in settle_work, which the rounds no longer need). stops (9): the descent's
 * goal_value, tolerance, rounding, rounding_root, drop and seconds (< 0: none), then
 * hold_share, hold and near.
 *
 * phi, gradient, normed: as rk_gauss_newton_descent's; settled (2n): the rounds' end and its
 * gradient; active (rows), fit (n) and seen (n bytes): kept_rows'. out (10): the descent's
 * G/w, evaluations and iterations; the rounds' status (rk_settle's, or RK_NOT_RUN), G/w,
 * evaluations, iterations and C; kept_rows' count; the norm of the gradient off those rows.
 * work: the descent's; settle_work and settle_iwork: rk_settle's work and iwork. Returns
 * rk_gauss_newton_descent's status. */
RK_EXPORT int32_t rk_quick(Descent *d, Settle *c, double *phi, double *gradient, double *normed,
                           double *settled, double *out, int32_t *active, double *fit,
                           uint8_t *seen, uint8_t *inactive, const double *stops,
                           int32_t max_iterations, double *work, double *settle_work,
                           int32_t *settle_iwork) {
    const int32_t n = d->objective->n;
    const double seconds = stops[5];
    const double began = seconds >= 0.0 ? monotonic_seconds() : 0.0;
    const int32_t status =
        rk_gauss_newton_descent(d, phi, gradient, normed, out, inactive, stops[0], stops[1],
                                stops[2], stops[3], stops[4], max_iterations, seconds, work);
    out[3] = RK_NOT_RUN;
    out[8] = -1.0;
    if (c == 0 || (status != RK_GOALS_MET && status != RK_MET_AT_START)) {
        return status;
    }
    c->ceiling = out[0] * (1.0 + stops[6]) + stops[7];
    c->nearby = c->ceiling + stops[8];
    memcpy(settled, phi, sizeof(double) * (size_t)n);
    memcpy(settled + n, gradient, sizeof(double) * (size_t)n);
    double left = -1.0;
    if (seconds >= 0.0) {
        left = seconds - (monotonic_seconds() - began);
        left = left > 0.0 ? left : 0.0;
    }
    double rounds[4] = {out[0], 0.0, 0.0, 0.0};
    const int32_t settle = rk_settle(d, c, settled, settled + n, rounds,
                                     max_iterations - (int32_t)out[2], left, settle_work,
                                     settle_iwork);
    out[3] = settle;
    out[4] = rounds[0];
    out[5] = rounds[1];
    out[6] = rounds[2];
    out[7] = rounds[3];
    if (settle == RK_SETTLED) {
        out[8] = kept_rows(d, c, settled, settled + n, active, fit, &out[9], seen, settle_work);
    }
    return status;
}

/* rotations.euler_quaternions: the unit quaternion (w, x, y, z) of each of k rotations,
 * three turns in a row about fixed axes (angles (k, 3) [rad] in the order applied, axes
 * (k, 3) in 0–2 for X, Y, Z): each turn's quaternion times the product of those before.
 * A row with an axis out of 0–2 is NaN. */
RK_EXPORT void rk_euler_quaternions(int32_t k, const double *angles, const int32_t *axes,
                                    double *out) {
    for (int32_t r = 0; r < k; ++r) {
        double q[4] = {1.0, 0.0, 0.0, 0.0};
        for (int turn = 0; turn < 3; ++turn) {
            const double half = 0.5 * angles[3 * r + turn];
            const int32_t axis = axes[3 * r + turn];
            double t[4] = {cos(half), 0.0, 0.0, 0.0};
            if (axis < 0 || axis > 2) {
                q[0] = q[1] = q[2] = q[3] = NAN;
                break;
            }
            t[1 + axis] = sin(half);
            const double p[4] = {q[0], q[1], q[2], q[3]};
            q[0] = t[0] * p[0] - t[1] * p[1] - t[2] * p[2] - t[3] * p[3];
            q[1] = t[0] * p[1] + t[1] * p[0] + t[2] * p[3] - t[3] * p[2];
            q[2] = t[0] * p[2] - t[1] * p[3] + t[2] * p[0] + t[3] * p[1];
            q[3] = t[0] * p[3] + t[1] * p[2] - t[2] * p[1] + t[3] * p[0];
        }
        for (int i = 0; i < 4; ++i) {
            out[4 * r + i] = q[i];
        }
    }
}

/* rotations.quaternion_matrices, then rotations.matrices_euler in one Euler order: for each
 * of k nonzero quaternions (w, x, y, z), its rotation matrix (row-major 3 × 3, into
 * matrices) and its Euler angles about X, Y, Z (into angles, k × 3). The order's axes are
 * i, j, l (first to last) and sign its parity (1 even, −1 odd); each rotation's angles are
 * of the decomposition nearest compat (k × 3, about X, Y, Z), whole turns added, or the
 * first decomposition where compat is NULL. A rotation at gimbal lock (cos b ≤ 1e-9, where
 * only a combination of the outer angles is defined) is flagged in locked for the caller
 * to read. */
RK_EXPORT void rk_quaternions_euler(int32_t k, const double *quaternions, int32_t i, int32_t j,
                                    int32_t l, double sign, const double *compat,
                                    double *matrices, double *angles, uint8_t *locked) {
    const double pi = 3.141592653589793, turn = 2.0 * pi;
    for (int32_t r = 0; r < k; ++r) {
        const double *q = quaternions + 4 * (int64_t)r;
        const double norm = sqrt(((q[0] * q[0] + q[1] * q[1]) + q[2] * q[2]) + q[3] * q[3]);
        const double w = q[0] / norm, x = q[1] / norm, y = q[2] / norm, z = q[3] / norm;
        double *m = matrices + 9 * (int64_t)r;
        m[0] = 1.0 - 2.0 * (y * y + z * z);
        m[1] = 2.0 * (x * y - w * z);
        m[2] = 2.0 * (x * z + w * y);
        m[3] = 2.0 * (x * y + w * z);
        m[4] = 1.0 - 2.0 * (x * x + z * z);
        m[5] = 2.0 * (y * z - w * x);
        m[6] = 2.0 * (x * z - w * y);
        m[7] = 2.0 * (y * z + w * x);
        m[8] = 1.0 - 2.0 * (x * x + y * y);
#define AT(row, column) m[3 * (row) + (column)]
        const double cos_b = hypot(AT(i, i), AT(j, i));
        double sine = -sign * AT(l, i);
        sine = sine < -1.0 ? -1.0 : (sine > 1.0 ? 1.0 : sine);
        double best[3] = {atan2(sign * AT(l, j), AT(l, l)), atan2(sine, cos_b),
                          atan2(sign * AT(j, i), AT(i, i))};
#undef AT
        locked[r] = cos_b <= 1e-9;
        if (compat) {
            const double *centre = compat + 3 * (int64_t)r;
            const double target[3] = {centre[i], centre[j], centre[l]};
            const double second[3] = {best[0] + pi, pi - best[1], best[2] + pi};
            double one[3], two[3];
            for (int a = 0; a < 3; ++a) {
                one[a] = best[a] + turn * nearbyint((target[a] - best[a]) / turn);
                two[a] = second[a] + turn * nearbyint((target[a] - second[a]) / turn);
            }
            const double d1 = ((one[0] - target[0]) * (one[0] - target[0]) +
                               (one[1] - target[1]) * (one[1] - target[1])) +
                              (one[2] - target[2]) * (one[2] - target[2]);
            const double d2 = ((two[0] - target[0]) * (two[0] - target[0]) +
                               (two[1] - target[1]) * (two[1] - target[1])) +
                              (two[2] - target[2]) * (two[2] - target[2]);
            for (int a = 0; a < 3; ++a) {
                best[a] = d2 < d1 ? two[a] : one[a];
            }
        }
        double *out = angles + 3 * (int64_t)r;
        out[i] = best[0];
        out[j] = best[1];
        out[l] = best[2];
    }
}
