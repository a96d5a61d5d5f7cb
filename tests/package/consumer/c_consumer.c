/* Built with nothing but `pkg-config --cflags --libs sciz` (tests/package/consume_install.cmake). */
#include <stdio.h>

int c_api_round_trip(void);

int main(void) {
  if (c_api_round_trip() != 0) return 1;
  printf("C API round trip within the bound\n");
  return 0;
}
