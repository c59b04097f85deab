// What the build of the core was made for, asked once when the module loads.
#include "cpcore/bits.hpp"
#include "cpcore/entry.h"

extern "C" int cpcore_needs_popcnt(void) {
#if defined(__POPCNT__)
    return 1;
#else
    return 0;
#endif
}
