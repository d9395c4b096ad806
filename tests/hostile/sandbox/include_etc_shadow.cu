// A program lesson submission that includes a file of the grader by absolute path.
#include "/etc/shadow"
int main() { return 0; }
