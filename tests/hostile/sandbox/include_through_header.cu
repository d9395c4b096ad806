// A submission whose own header reaches for /etc/shadow.
#include "leaky_header.h"
int main() { return 0; }
