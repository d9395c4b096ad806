// A submission that tries to read a file it must not see.
#define SOLUTION "../solutions/01-threads.cu"
#include SOLUTION
