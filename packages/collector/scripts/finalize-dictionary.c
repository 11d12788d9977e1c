/*
 * zstd's ZDICT_finalizeDictionary over a custom content: a dictionary in zstd's format whose content is the given
 * bytes, whole, and whose entropy tables come from the samples. Run by make-span-dictionary.ts (which says why);
 * needs zstd's development files (Debian: libzstd-dev) and a C compiler.
 *
 *   finalize-dictionary CONTENT SAMPLES SIZES OUT LEVEL DICT_ID
 *
 * SAMPLES is the samples joined, SIZES their lengths as little-endian 64-bit integers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <zdict.h>

static void *slurp(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f || fseek(f, 0, SEEK_END) != 0) { perror(path); exit(1); }
  long n = ftell(f);
  rewind(f);
  void *bytes = malloc(n > 0 ? (size_t)n : 1);
  if (!bytes || fread(bytes, 1, (size_t)n, f) != (size_t)n) { perror(path); exit(1); }
  fclose(f);
  *size = (size_t)n;
  return bytes;
}

int main(int argc, char **argv) {
  if (argc != 7) {
    fprintf(stderr, "usage: %s CONTENT SAMPLES SIZES OUT LEVEL DICT_ID\n", argv[0]);
    return 2;
  }
  size_t content_size, samples_size, sizes_size;
  void *content = slurp(argv[1], &content_size);
  void *samples = slurp(argv[2], &samples_size);
  size_t *sizes = slurp(argv[3], &sizes_size);
  ZDICT_params_t params = {0};
  params.compressionLevel = atoi(argv[5]);
  params.dictID = (unsigned)strtoul(argv[6], NULL, 10);
  /* Room for the header and tables past the content, so that none of the content is cut. */
  size_t capacity = content_size + 64 * 1024;
  void *out = malloc(capacity);
  size_t made = ZDICT_finalizeDictionary(out, capacity, content, content_size, samples, sizes,
                                         (unsigned)(sizes_size / sizeof(size_t)), params);
  if (ZDICT_isError(made)) {
    fprintf(stderr, "ZDICT_finalizeDictionary: %s\n", ZDICT_getErrorName(made));
    return 1;
  }
  FILE *f = fopen(argv[4], "wb");
  if (!f || fwrite(out, 1, made, f) != made || fclose(f) != 0) { perror(argv[4]); return 1; }
  return 0;
}
