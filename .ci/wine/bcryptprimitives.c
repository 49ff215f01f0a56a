/* Stand-in for bcryptprimitives.dll, which Wine 8.0 lacks.
 *
 * Rust's std (>= 1.78) for x86_64-pc-windows-gnu imports ProcessPrng from bcryptprimitives.dll
 * (HashMap seeds, tempfile names). Windows 10+ has it; without it under Wine every exe dies before
 * main (exit code 53, "Library bcryptprimitives.dll ... not found", status c0000135).
 * This DLL exports ProcessPrng on top of advapi32's RtlGenRandom (SystemFunction036), which Wine
 * implements. It is only for running the tests under Wine: never ship it next to lnkfix.exe.
 *
 * Built by .ci/windows.sh:
 *   x86_64-w64-mingw32-gcc -shared -O2 -s -o bcryptprimitives.dll bcryptprimitives.c -ladvapi32
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length); /* advapi32 RtlGenRandom */

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG chunk = length > 0x40000000 ? 0x40000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
