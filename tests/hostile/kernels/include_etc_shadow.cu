// A submission that tries to read a file it must not see.
#include </etc/shadow>
