// A local header that includes a file of the grader: nvcc, in the sandbox, finds nothing.
#include "/etc/shadow"
