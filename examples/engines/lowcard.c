/* lowcard: a Page One engine in C that speaks cardarena's engine protocol
 * (docs/engine_protocol.md): one JSON object a line on stdin and stdout.
 *
 * Its heuristic reads only the words of the legal actions ("7♦", "Jk1=♠"):
 * play the legal card of the lowest rank (shedding low cards, keeping the
 * high ones that win tricks and take the lead), the lowest action id on a tie.
 * No JSON library: the scanner below reads just what it needs.
 *
 * Build:  gcc -O2 -std=c99 -Wall -o lowcard examples/engines/lowcard.c
 */
#define _POSIX_C_SOURCE 200809L   /* getline */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The value of the string at *p (just after its opening quote) into out,
 * escapes undone (\uXXXX is copied as is: card words need only the rank).
 * Returns the position after the closing quote. */
static const char *read_string(const char *p, char *out, size_t size) {
    size_t n = 0;
    while (*p && *p != '"') {
        char c = *p++;
        if (c == '\\' && *p) c = *p++;
        if (n + 1 < size) out[n++] = c;
    }
    if (size) out[n] = '\0';
    return *p == '"' ? p + 1 : p;
}

static const char *skip_space(const char *p) {
    while (*p && isspace((unsigned char)*p)) p++;
    return p;
}

/* The position just after `"key":` at the top level of the object at line, or NULL. */
static const char *find_key(const char *line, const char *key) {
    size_t len = strlen(key);
    int depth = 0;
    for (const char *p = line; *p; p++) {
        if (*p == '"') {
            char name[64];
            p = read_string(p + 1, name, sizeof name) - 1;
            if (depth == 1 && strlen(name) == len && memcmp(name, key, len) == 0) {
                const char *q = skip_space(p + 1);
                if (*q == ':') return skip_space(q + 1);
            }
        } else if (*p == '{' || *p == '[') {
            depth++;
        } else if (*p == '}' || *p == ']') {
            depth--;
        }
    }
    return NULL;
}

/* A card word's rank, 0 (2) to 12 (A), 13 for a joker ("Jk1=♠"), 14 if none. */
static int rank_of(const char *text) {
    static const char ranks[] = "23456789TJQKA";
    if (strncmp(text, "Jk", 2) == 0) return 13;
    const char *r = strchr(ranks, text[0]);
    return r && text[0] ? (int)(r - ranks) : 14;
}

/* The chosen action of a turn line: the legal card of lowest rank. -1 if none. */
static int choose(const char *line) {
    const char *p = find_key(line, "legal");
    if (!p || *p != '[') return -1;
    int best = -1, best_rank = 99;
    p++;
    while (*(p = skip_space(p)) == '{') {
        int action = -1;
        char text[64] = "";
        p++;
        while (*(p = skip_space(p)) == '"') {          /* the object's "key": value pairs */
            char key[16];
            p = skip_space(read_string(p + 1, key, sizeof key));
            if (*p == ':') p = skip_space(p + 1);
            if (strcmp(key, "action") == 0) {
                action = (int)strtol(p, (char **)&p, 10);
            } else if (strcmp(key, "text") == 0 && *p == '"') {
                p = read_string(p + 1, text, sizeof text);
            } else {                                     /* another value: skip it */
                while (*p && *p != ',' && *p != '}') p = *p == '"' ? read_string(p + 1, key, 0) : p + 1;
            }
            p = skip_space(p);
            if (*p == ',') p++;
        }
        if (*p == '}') p++;
        int rank = rank_of(text);
        if (action >= 0 && (rank < best_rank || (rank == best_rank && action < best))) {
            best = action;
            best_rank = rank;
        }
        p = skip_space(p);
        if (*p == ',') p++;
    }
    return best;
}

int main(void) {
    char *line = NULL;
    size_t capacity = 0;
    while (getline(&line, &capacity, stdin) != -1) {
        const char *type = find_key(line, "type");
        char kind[32] = "";
        if (type && *type == '"') read_string(type + 1, kind, sizeof kind);
        if (strcmp(kind, "hello") == 0) {
            printf("{\"type\":\"hello\",\"name\":\"lowcard\",\"version\":\"1.0\"}\n");
        } else if (strcmp(kind, "turn") == 0) {
            int action = choose(line);
            if (action < 0) {
                fprintf(stderr, "lowcard: a turn without legal actions\n");
                return 1;
            }
            printf("{\"action\":%d}\n", action);
        } else if (strcmp(kind, "quit") == 0) {
            break;
        }                                                /* deal, deal_end: nothing to say */
        fflush(stdout);
    }
    free(line);
    return 0;
}
