// A submission that tries to read a file it must not see.
#include "../solutions/01-threads.cu"
