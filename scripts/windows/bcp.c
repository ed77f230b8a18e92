/* bcryptprimitives.dll for Wine 8.0 (Debian 12), which lacks it: Rust's std
 * (1.78 and later) imports ProcessPrng from it, so every Windows binary fails to
 * start under Wine 8 without it (exit 53). It forwards to RtlGenRandom
 * (advapi32's SystemFunction036). Built and installed by scripts/test-windows.sh;
 * never shipped: a real Windows has the DLL. */
#include <windows.h>
BOOLEAN WINAPI SystemFunction036(PVOID buf, ULONG len);
__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len > 0) {
        ULONG n = len > 0x7fffffff ? 0x7fffffff : (ULONG)len;
        if (!SystemFunction036(data, n)) return FALSE;
        data += n;
        len -= n;
    }
    return TRUE;
}
