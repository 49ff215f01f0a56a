/* A stand-in for lld-link, for the tests of `lnkfix diagnose --verify` (tests/verify.rs).
 *
 * Built as `lld-link` (Linux, by the test with clang-14) and as `lld-link.exe` (Windows, by
 * .ci/windows.sh with x86_64-w64-mingw32-gcc), so that lnkfix's allow-list takes it by name. It
 * checks its arguments the way a linker would, and says what it received:
 *
 *   - every argument is printed as `arg: TEXT` (UTF-8), so a test can compare them with the
 *     command lnkfix reports (this is how the Windows quoting is checked end to end);
 *   - an argument `@FILE` is a response file: its words are read (whitespace-separated, double
 *     quotes group) and printed as `rsp-arg: TEXT`;
 *   - `/OUT:`, `/PDB:` and `/IMPLIB:` name the files it writes on success;
 *   - `/LIBPATH:DIR` adds a library directory; a `NAME.lib` argument must exist in one of them
 *     (or in the working directory), else: `lld-link: error: could not open 'NAME.lib': ...`;
 *   - an argument ending in `.obj` is a text file of lines:
 *       need SYMBOL LIBRARY   SYMBOL is undefined unless LIBRARY is among the arguments;
 *       hang                  start a copy of this program that writes its process id into
 *                             OBJ.pid and sleeps, then sleep (for the time limit test);
 *       flood BYTES           write BYTES bytes to stdout (for the output bound test).
 *
 * Exit 0 and the outputs written when nothing is missing, else exit 1 with lld-link's messages. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#include <windows.h>
#else
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#define MAX_WORDS 4096

static char *words[MAX_WORDS];
static int word_count;
static const char *lib_dirs[MAX_WORDS];
static int lib_dir_count;

#ifdef _WIN32
static wchar_t *wide(const char *utf8) {
    int n = MultiByteToWideChar(CP_UTF8, 0, utf8, -1, NULL, 0);
    wchar_t *out = malloc(sizeof(wchar_t) * (size_t)n);
    MultiByteToWideChar(CP_UTF8, 0, utf8, -1, out, n);
    return out;
}
static char *narrow(const wchar_t *text) {
    int n = WideCharToMultiByte(CP_UTF8, 0, text, -1, NULL, 0, NULL, NULL);
    char *out = malloc((size_t)n);
    WideCharToMultiByte(CP_UTF8, 0, text, -1, out, n, NULL, NULL);
    return out;
}
static FILE *open_file(const char *path, const char *mode) {
    wchar_t wmode[8];
    MultiByteToWideChar(CP_UTF8, 0, mode, -1, wmode, 8);
    return _wfopen(wide(path), wmode);
}
static int is_file(const char *path) {
    DWORD attributes = GetFileAttributesW(wide(path));
    return attributes != INVALID_FILE_ATTRIBUTES && !(attributes & FILE_ATTRIBUTE_DIRECTORY);
}
static void sleep_seconds(int seconds) { Sleep((DWORD)seconds * 1000); }
static long process_id(void) { return (long)GetCurrentProcessId(); }
#else
static FILE *open_file(const char *path, const char *mode) { return fopen(path, mode); }
static int is_file(const char *path) {
    struct stat s;
    return stat(path, &s) == 0 && S_ISREG(s.st_mode);
}
static void sleep_seconds(int seconds) { sleep((unsigned)seconds); }
static long process_id(void) { return (long)getpid(); }
#endif

static char lower(char c) { return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c; }

static int starts_with_ci(const char *text, const char *prefix) {
    for (; *prefix; text++, prefix++) {
        if (!*text || lower(*text) != lower(*prefix)) return 0;
    }
    return 1;
}

static int ends_with_ci(const char *text, const char *suffix) {
    size_t n = strlen(text), m = strlen(suffix);
    return n >= m && starts_with_ci(text + n - m, suffix);
}

static int equal_ci(const char *a, const char *b) {
    return strlen(a) == strlen(b) && starts_with_ci(a, b);
}

static void add_word(const char *word) {
    if (word_count < MAX_WORDS) words[word_count++] = strdup(word);
}

/* Reads a response file: whitespace separates, double quotes group (enough for these tests). */
static int read_response_file(const char *path) {
    FILE *f = open_file(path, "rb");
    if (!f) {
        printf("lld-link: error: cannot open response file %s\n", path);
        return 0;
    }
    char word[8192];
    size_t length = 0;
    int in_quotes = 0, c, have = 0;
    while ((c = fgetc(f)) != EOF) {
        if (c == '"') {
            in_quotes = !in_quotes;
            have = 1;
        } else if (!in_quotes && (c == ' ' || c == '\t' || c == '\r' || c == '\n')) {
            if (have) {
                word[length] = 0;
                printf("rsp-arg: %s\n", word);
                add_word(word);
            }
            length = 0;
            have = 0;
        } else if (length + 1 < sizeof word) {
            word[length++] = (char)c;
            have = 1;
        }
    }
    if (have) {
        word[length] = 0;
        printf("rsp-arg: %s\n", word);
        add_word(word);
    }
    fclose(f);
    return 1;
}

static int library_found(const char *name) {
    if (is_file(name)) return 1;
    for (int i = 0; i < lib_dir_count; i++) {
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", lib_dirs[i], name);
        if (is_file(path)) return 1;
    }
    return 0;
}

static int library_given(const char *name) {
    for (int i = 0; i < word_count; i++) {
        const char *w = words[i];
        const char *base = w;
        for (const char *p = w; *p; p++)
            if (*p == '/' || *p == '\\') base = p + 1;
        if (w[0] != '/' && w[0] != '-' && equal_ci(base, name)) return 1;
    }
    return 0;
}

static void hang(const char *object, const char *self) {
    char pid_file[8192];
    snprintf(pid_file, sizeof pid_file, "%s.pid", object);
#ifdef _WIN32
    wchar_t module[MAX_PATH];
    GetModuleFileNameW(NULL, module, MAX_PATH);
    char command[16384];
    snprintf(command, sizeof command, "\"%s\" --sleep \"%s\"", narrow(module), pid_file);
    STARTUPINFOW startup;
    memset(&startup, 0, sizeof startup);
    startup.cb = sizeof startup;
    PROCESS_INFORMATION process;
    CreateProcessW(NULL, wide(command), NULL, NULL, FALSE, 0, NULL, NULL, &startup, &process);
    (void)self;
#else
    (void)self;
    if (fork() == 0) {
        FILE *f = fopen(pid_file, "w");
        if (f) {
            fprintf(f, "%ld\n", process_id());
            fclose(f);
        }
        sleep_seconds(600);
        _exit(0);
    }
#endif
    fflush(stdout);
    sleep_seconds(600);
}

static int run(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "--sleep") == 0) {
        FILE *f = open_file(argv[2], "w");
        if (f) {
            fprintf(f, "%ld\n", process_id());
            fclose(f);
        }
        sleep_seconds(600);
        return 0;
    }
    for (int i = 1; i < argc; i++) {
        printf("arg: %s\n", argv[i]);
        if (argv[i][0] == '@') {
            if (!read_response_file(argv[i] + 1)) return 1;
        } else {
            add_word(argv[i]);
        }
    }
    const char *out = NULL, *pdb = NULL, *implib = NULL;
    for (int i = 0; i < word_count; i++) {
        const char *w = words[i];
        if (starts_with_ci(w, "/out:")) out = w + 5;
        if (starts_with_ci(w, "/pdb:")) pdb = w + 5;
        if (starts_with_ci(w, "/implib:")) implib = w + 8;
        if (starts_with_ci(w, "/libpath:")) lib_dirs[lib_dir_count++] = w + 9;
    }
    int errors = 0;
    for (int i = 0; i < word_count; i++) {
        const char *w = words[i];
        if (w[0] == '/' || w[0] == '-' || !ends_with_ci(w, ".obj")) continue;
        FILE *f = open_file(w, "r");
        if (!f) {
            printf("lld-link: error: could not open '%s': no such file or directory\n", w);
            errors++;
            continue;
        }
        char line[8192];
        while (fgets(line, sizeof line, f)) {
            char symbol[4096], library[4096];
            long bytes;
            if (sscanf(line, "need %4095s %4095s", symbol, library) == 2) {
                if (!library_given(library)) {
                    printf("lld-link: error: undefined symbol: %s\n>>> referenced by %s\n\n", symbol, w);
                    errors++;
                }
            } else if (strncmp(line, "hang", 4) == 0) {
                fclose(f);
                hang(w, argv[0]);
                return 1;
            } else if (sscanf(line, "flood %ld", &bytes) == 1) {
                static char chunk[65536];
                memset(chunk, 'x', sizeof chunk);
                for (long done = 0; done < bytes; done += (long)sizeof chunk) fwrite(chunk, 1, sizeof chunk, stdout);
                errors++;
            }
        }
        fclose(f);
    }
    for (int i = 0; i < word_count; i++) {
        const char *w = words[i];
        if (w[0] != '/' && w[0] != '-' && ends_with_ci(w, ".lib") && !library_found(w)) {
            printf("lld-link: error: could not open '%s': no such file or directory\n", w);
            errors++;
        }
    }
    if (errors) return 1;
    if (!out) {
        printf("lld-link: error: no /out: given\n");
        return 1;
    }
    const char *outputs[3] = {out, pdb, implib};
    for (int i = 0; i < 3; i++) {
        if (!outputs[i]) continue;
        FILE *f = open_file(outputs[i], "wb");
        if (!f) {
            printf("lld-link: error: cannot write %s\n", outputs[i]);
            return 1;
        }
        fputs("written by the stand-in linker\n", f);
        fclose(f);
    }
    return 0;
}

#ifdef _WIN32
int wmain(int argc, wchar_t **wargv) {
    char **argv = malloc(sizeof(char *) * (size_t)(argc + 1));
    for (int i = 0; i < argc; i++) argv[i] = narrow(wargv[i]);
    argv[argc] = NULL;
    return run(argc, argv);
}
#else
int main(int argc, char **argv) { return run(argc, argv); }
#endif
