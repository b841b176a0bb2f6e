/* longsuit: a Page One engine in C that speaks cardarena's engine protocol
 * (docs/engine_protocol.md): one JSON object a line on stdin and stdout.
 *
 * Its heuristic reads only the words of the legal actions ("7♦", "Jk1=♠"):
 * play the highest card of the suit it has most legal cards of. Following,
 * that is its highest card of the led suit, to win the trick and the lead;
 * leading (every card is legal), the top of its longest suit, which the others
 * are the likeliest to lack, so they draw. Ties: the lowest action id.
 * No JSON library: the scanner below reads just what it needs.
 *
 * Build:  gcc -O2 -std=c99 -Wall -o longsuit examples/engines/longsuit.c
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

/* A card word's rank, 0 (2) to 12 (A), 13 for a joker ("Jk1=♠"), -1 if none. */
static int rank_of(const char *text) {
    static const char ranks[] = "23456789TJQKA";
    if (strncmp(text, "Jk", 2) == 0) return 13;
    const char *r = text[0] ? strchr(ranks, text[0]) : NULL;
    return r ? (int)(r - ranks) : -1;
}

/* A card word's suit: the symbol after the rank ("7♦"), or after '=' for a joker. */
static const char *suit_of(const char *text) {
    const char *eq = strchr(text, '=');
    return eq ? eq + 1 : text[0] ? text + 1 : text;
}

#define MAX_LEGAL 256

/* The chosen action of a turn line; -1 if it has no legal action. */
static int choose(const char *line) {
    static int actions[MAX_LEGAL];
    static char texts[MAX_LEGAL][32];
    int n = 0;
    const char *p = find_key(line, "legal");
    if (!p || *p != '[') return -1;
    p++;
    while (*(p = skip_space(p)) == '{' && n < MAX_LEGAL) {
        int action = -1;
        texts[n][0] = '\0';
        p++;
        while (*(p = skip_space(p)) == '"') {          /* the object's "key": value pairs */
            char key[16];
            p = skip_space(read_string(p + 1, key, sizeof key));
            if (*p == ':') p = skip_space(p + 1);
            if (strcmp(key, "action") == 0) {
                action = (int)strtol(p, (char **)&p, 10);
            } else if (strcmp(key, "text") == 0 && *p == '"') {
                p = read_string(p + 1, texts[n], sizeof texts[n]);
            } else {                                     /* another value: skip it */
                while (*p && *p != ',' && *p != '}') p = *p == '"' ? read_string(p + 1, key, 0) : p + 1;
            }
            p = skip_space(p);
            if (*p == ',') p++;
        }
        if (*p == '}') p++;
        if (action >= 0) actions[n++] = action;
        p = skip_space(p);
        if (*p == ',') p++;
    }
    int best = -1, best_count = -1, best_rank = -2;
    for (int i = 0; i < n; i++) {
        int count = 0;
        for (int j = 0; j < n; j++)
            count += strcmp(suit_of(texts[i]), suit_of(texts[j])) == 0;
        int rank = rank_of(texts[i]);
        if (count > best_count || (count == best_count && (rank > best_rank ||
                                                          (rank == best_rank && actions[i] < actions[best])))) {
            best = i;
            best_count = count;
            best_rank = rank;
        }
    }
    return best < 0 ? -1 : actions[best];
}

int main(void) {
    char *line = NULL;
    size_t capacity = 0;
    while (getline(&line, &capacity, stdin) != -1) {
        const char *type = find_key(line, "type");
        char kind[32] = "";
        if (type && *type == '"') read_string(type + 1, kind, sizeof kind);
        if (strcmp(kind, "hello") == 0) {
            printf("{\"type\":\"hello\",\"name\":\"longsuit\",\"version\":\"1.0\"}\n");
        } else if (strcmp(kind, "turn") == 0) {
            int action = choose(line);
            if (action < 0) {
                fprintf(stderr, "longsuit: a turn without legal actions\n");
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
