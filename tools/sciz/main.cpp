#include <sciz/sciz.hpp>
#include <cstdio>
int main() { std::puts("sciz: CLI under construction"); return 0; }
