#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cstdlib>

// The suite expects English lesson texts and hints, whatever the machine's locale (a zh_CN
// locale would choose Chinese: lessons/translation.h); the tests of --lang set their own.
[[maybe_unused]] static const int english_texts = ::setenv("CUDALAB_LANG", "en", 1);
