// Runs far longer than any check should: stopped by the wall-clock limit when the budget is raised.
__global__ void k(int* x) { for (long long i = 0; i < (1ll << 40); ++i) if (x[i & 7] == 12345) x[0] = int(i); }
