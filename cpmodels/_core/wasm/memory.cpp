// What a compiler may call to copy or clear memory, for the WebAssembly build of the core
// alone (a native build takes the C library's). Compiled with -fno-builtin, so that these
// loops are not turned back into calls of themselves.
#include <stddef.h>
#include <stdint.h>

extern "C" {

void* memcpy(void* dst, const void* src, size_t n) {
    unsigned char* d = static_cast<unsigned char*>(dst);
    const unsigned char* s = static_cast<const unsigned char*>(src);
    if ((((uintptr_t)d | (uintptr_t)s) & 7) == 0) {
        for (; n >= 8; n -= 8, d += 8, s += 8)
            *reinterpret_cast<uint64_t*>(d) = *reinterpret_cast<const uint64_t*>(s);
    }
    while (n--) *d++ = *s++;
    return dst;
}

void* memmove(void* dst, const void* src, size_t n) {
    unsigned char* d = static_cast<unsigned char*>(dst);
    const unsigned char* s = static_cast<const unsigned char*>(src);
    if (d <= s || d >= s + n) return memcpy(dst, src, n);
    while (n--) d[n] = s[n];  // overlapping, destination above: copy from the end
    return dst;
}

void* memset(void* dst, int value, size_t n) {
    unsigned char* d = static_cast<unsigned char*>(dst);
    while (n--) *d++ = (unsigned char)value;
    return dst;
}

}  // extern "C"
