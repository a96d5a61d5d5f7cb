/* The C API from C: compress and decompress a small field, every point checked. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <sciz/sciz.h>

int c_api_round_trip(void) {
  enum { N = 4096 };
  double field[N], back[N];
  for (int i = 0; i < N; ++i) field[i] = cos(0.01 * i) * 3.0;
  const uint64_t dims[1] = {N};
  const uint64_t cap = sciz_max_compressed_size(SCIZ_F64, dims, 1);
  void* stream = malloc(cap);
  uint64_t size = 0;
  if (sciz_compress(field, SCIZ_F64, dims, 1, SCIZ_EB_ABS, 1e-4, "lorenzo", SCIZ_DEVICE_CPU, stream, cap, &size) != SCIZ_OK ||
      sciz_decompress(stream, size, back, sizeof back, SCIZ_DEVICE_CPU) != SCIZ_OK) {
    printf("C API: %s\n", sciz_last_error());
    free(stream);
    return 1;
  }
  free(stream);
  for (int i = 0; i < N; ++i) {
    if (!(fabs(field[i] - back[i]) <= 1e-4)) {
      printf("C API: point %d misses the bound\n", i);
      return 1;
    }
  }
  return 0;
}
