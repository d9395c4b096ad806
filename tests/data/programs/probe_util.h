// A local header of probe.cu: changing it must rebuild the program (the cache key covers it).
#pragma once
#define PROBE_GREETING "probe"
