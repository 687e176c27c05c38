#include <cstdio>

int main() {
  std::puts("mlipc: not yet wired");
  return 1;
}
