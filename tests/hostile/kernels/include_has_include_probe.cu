// A submission that tries to read a file it must not see.
#if __has_include("/etc/shadow")
#error the grader has /etc/shadow
#endif
