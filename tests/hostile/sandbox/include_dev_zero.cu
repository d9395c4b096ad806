// A program lesson submission whose include never ends.
#include "/dev/zero"
int main() { return 0; }
