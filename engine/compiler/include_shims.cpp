// The header texts behind include_shims.h. What NVRTC provides on its own was measured with
// NVRTC 13.0 and decides what each shim contains:
//   - built in, no #include needed: threadIdx & co., __syncthreads, atomics, vector types, printf,
//     malloc/free/memcpy/memset, the assert macro (calls __assertfail), size_t, NULL, and the CUDA
//     math library in the global namespace with its C++ overloads (sqrt(float), min(int, int), ...)
//   - missing: every standard header, the std:: spellings of the above, the <climits>/<cfloat>
//     macros, INFINITY/NAN, fixed-width integer types, type traits and numeric_limits
// A shim therefore declares only what is missing and re-exports NVRTC's own functions into std::
// with using-declarations; it never re-implements a device function. Nothing here is host code:
// a learner file holds kernels only.
//
// The fixed-width types follow libcu++ under NVRTC (int64_t is long long), so a file may mix
// <cstdint> with <cuda/std/cstdint> or <cooperative_groups.h>, which resolve to the toolkit.
//
// [SECTION] C headers: stddef.h, stdint.h, limits.h, float.h, math.h, stdlib.h, stdio.h,
//           string.h, assert.h
// [SECTION] C++ wrappers: cstddef, cstdint, climits, cfloat, cmath, cstdlib, cstdio, cstring,
//           cassert
// [SECTION] C++ library subset: type_traits, utility, initializer_list, algorithm, limits
// [SECTION] CUDA headers: cuda_runtime.h, cuda_runtime_api.h, cuda.h, device_launch_parameters.h
// [SECTION] The prelude and the table
#include "compiler/include_shims.h"

#include <array>

namespace cudalab::compiler {
namespace {

// ---------------------------------------------------------------------------------------------
// [SECTION] C headers
// ---------------------------------------------------------------------------------------------

// NVRTC defines size_t and NULL but not ptrdiff_t, nullptr_t or offsetof. EDG under NVRTC has no
// __builtin_offsetof, so offsetof is the classic null-pointer form (good for run-time use).
constexpr const char* stddef_h = R"shim(
#ifndef CUDALAB_SHIM_STDDEF_H
#define CUDALAB_SHIM_STDDEF_H
typedef decltype(sizeof(0)) size_t;
typedef decltype((char*)0 - (char*)0) ptrdiff_t;
typedef decltype(nullptr) nullptr_t;
#ifndef NULL
#define NULL 0
#endif
#ifndef offsetof
#define offsetof(type, member) ((size_t)&reinterpret_cast<const volatile char&>(((type*)0)->member))
#endif
#endif
)shim";

// 64-bit types are long long, as libcu++ spells them under NVRTC (see the file comment).
constexpr const char* stdint_h = R"shim(
#ifndef CUDALAB_SHIM_STDINT_H
#define CUDALAB_SHIM_STDINT_H
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
typedef int8_t int_least8_t;
typedef int16_t int_least16_t;
typedef int32_t int_least32_t;
typedef int64_t int_least64_t;
typedef uint8_t uint_least8_t;
typedef uint16_t uint_least16_t;
typedef uint32_t uint_least32_t;
typedef uint64_t uint_least64_t;
typedef int8_t int_fast8_t;
typedef int16_t int_fast16_t;
typedef int32_t int_fast32_t;
typedef int64_t int_fast64_t;
typedef uint8_t uint_fast8_t;
typedef uint16_t uint_fast16_t;
typedef uint32_t uint_fast32_t;
typedef uint64_t uint_fast64_t;
typedef int64_t intptr_t;
typedef uint64_t uintptr_t;
typedef int64_t intmax_t;
typedef uint64_t uintmax_t;
#ifndef INT8_MIN
#define INT8_MIN (-128)
#define INT16_MIN (-32767 - 1)
#define INT32_MIN (-2147483647 - 1)
#define INT64_MIN (-9223372036854775807LL - 1)
#define INT8_MAX 127
#define INT16_MAX 32767
#define INT32_MAX 2147483647
#define INT64_MAX 9223372036854775807LL
#define UINT8_MAX 255
#define UINT16_MAX 65535
#define UINT32_MAX 4294967295U
#define UINT64_MAX 18446744073709551615ULL
#endif
#ifndef INTPTR_MAX
#define INTPTR_MIN INT64_MIN
#define INTPTR_MAX INT64_MAX
#define UINTPTR_MAX UINT64_MAX
#define INTMAX_MIN INT64_MIN
#define INTMAX_MAX INT64_MAX
#define UINTMAX_MAX UINT64_MAX
#define PTRDIFF_MIN INT64_MIN
#define PTRDIFF_MAX INT64_MAX
#define SIZE_MAX UINT64_MAX
#endif
#ifndef INT8_C
#define INT8_C(c) c
#define INT16_C(c) c
#define INT32_C(c) c
#define INT64_C(c) c##LL
#define UINT8_C(c) c
#define UINT16_C(c) c
#define UINT32_C(c) c##U
#define UINT64_C(c) c##ULL
#define INTMAX_C(c) c##LL
#define UINTMAX_C(c) c##ULL
#endif
#endif
)shim";

// Each macro is guarded: libcu++'s <cuda/std/climits> defines the same names under NVRTC, and
// either header may come first.
constexpr const char* limits_h = R"shim(
#ifndef CUDALAB_SHIM_LIMITS_H
#define CUDALAB_SHIM_LIMITS_H
#ifndef CHAR_BIT
#define CHAR_BIT 8
#endif
#ifndef SCHAR_MIN
#define SCHAR_MIN (-128)
#endif
#ifndef SCHAR_MAX
#define SCHAR_MAX 127
#endif
#ifndef UCHAR_MAX
#define UCHAR_MAX 255
#endif
#ifndef CHAR_MIN
#if '\xff' < 0
#define CHAR_MIN SCHAR_MIN
#define CHAR_MAX SCHAR_MAX
#else
#define CHAR_MIN 0
#define CHAR_MAX UCHAR_MAX
#endif
#endif
#ifndef SHRT_MIN
#define SHRT_MIN (-32767 - 1)
#endif
#ifndef SHRT_MAX
#define SHRT_MAX 32767
#endif
#ifndef USHRT_MAX
#define USHRT_MAX 65535
#endif
#ifndef INT_MIN
#define INT_MIN (-2147483647 - 1)
#endif
#ifndef INT_MAX
#define INT_MAX 2147483647
#endif
#ifndef UINT_MAX
#define UINT_MAX 4294967295U
#endif
#ifndef LLONG_MIN
#define LLONG_MIN (-9223372036854775807LL - 1)
#endif
#ifndef LLONG_MAX
#define LLONG_MAX 9223372036854775807LL
#endif
#ifndef ULLONG_MAX
#define ULLONG_MAX 18446744073709551615ULL
#endif
#ifndef LONG_MAX
#ifdef __LP64__
#define LONG_MIN (-9223372036854775807L - 1)
#define LONG_MAX 9223372036854775807L
#define ULONG_MAX 18446744073709551615UL
#else
#define LONG_MIN (-2147483647L - 1)
#define LONG_MAX 2147483647L
#define ULONG_MAX 4294967295UL
#endif
#endif
#endif
)shim";

// Hexadecimal literals (C++17) state the IEEE-754 limits exactly.
constexpr const char* float_h = R"shim(
#ifndef CUDALAB_SHIM_FLOAT_H
#define CUDALAB_SHIM_FLOAT_H
#define FLT_RADIX 2
#define FLT_EVAL_METHOD 0
#define DECIMAL_DIG 17
#define FLT_MANT_DIG 24
#define FLT_DIG 6
#define FLT_DECIMAL_DIG 9
#define FLT_MIN_EXP (-125)
#define FLT_MAX_EXP 128
#define FLT_MIN_10_EXP (-37)
#define FLT_MAX_10_EXP 38
#define FLT_MIN 0x1p-126F
#define FLT_MAX 0x1.fffffep127F
#define FLT_EPSILON 0x1p-23F
#define FLT_TRUE_MIN 0x1p-149F
#define DBL_MANT_DIG 53
#define DBL_DIG 15
#define DBL_DECIMAL_DIG 17
#define DBL_MIN_EXP (-1021)
#define DBL_MAX_EXP 1024
#define DBL_MIN_10_EXP (-307)
#define DBL_MAX_10_EXP 308
#define DBL_MIN 0x1p-1022
#define DBL_MAX 0x1.fffffffffffffp1023
#define DBL_EPSILON 0x1p-52
#define DBL_TRUE_MIN 0x1p-1074
#endif
)shim";

// The functions are NVRTC's. INFINITY and NAN need a constant without __builtin_huge_valf (absent
// under NVRTC); __builtin_bit_cast is present and constexpr. M_PI & co. are POSIX, but g++ enables
// them by default, so nvcc users rely on them.
constexpr const char* math_h = R"shim(
#ifndef CUDALAB_SHIM_MATH_H
#define CUDALAB_SHIM_MATH_H
#ifndef INFINITY
#define INFINITY (__builtin_bit_cast(float, 0x7f800000U))
#endif
#ifndef NAN
#define NAN (__builtin_bit_cast(float, 0x7fc00000U))
#endif
#ifndef HUGE_VALF
#define HUGE_VALF INFINITY
#endif
#ifndef HUGE_VAL
#define HUGE_VAL (__builtin_bit_cast(double, 0x7ff0000000000000ULL))
#endif
#ifndef M_PI
#define M_E 2.7182818284590452354
#define M_LOG2E 1.4426950408889634074
#define M_LOG10E 0.43429448190325182765
#define M_LN2 0.69314718055994530942
#define M_LN10 2.30258509299404568402
#define M_PI 3.14159265358979323846
#define M_PI_2 1.57079632679489661923
#define M_PI_4 0.78539816339744830962
#define M_1_PI 0.31830988618379067154
#define M_2_PI 0.63661977236758134308
#define M_2_SQRTPI 1.12837916709551257390
#define M_SQRT2 1.41421356237309504880
#define M_SQRT1_2 0.70710678118654752440
#endif
#endif
)shim";

// malloc, free and abs/labs/llabs are NVRTC's; the rest of <stdlib.h> has no device version.
constexpr const char* stdlib_h = R"shim(
#ifndef CUDALAB_SHIM_STDLIB_H
#define CUDALAB_SHIM_STDLIB_H
#include <stddef.h>
#ifndef EXIT_SUCCESS
#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1
#endif
#endif
)shim";

// Device printf is built into NVRTC (it lowers to vprintf); nothing else in <stdio.h> exists on
// the device.
constexpr const char* stdio_h = R"shim(
#ifndef CUDALAB_SHIM_STDIO_H
#define CUDALAB_SHIM_STDIO_H
#include <stddef.h>
#endif
)shim";

// memcpy and memset are NVRTC's; the string functions (strlen, ...) have no device version.
constexpr const char* string_h = R"shim(
#ifndef CUDALAB_SHIM_STRING_H
#define CUDALAB_SHIM_STRING_H
#include <stddef.h>
#endif
)shim";

// NVRTC predefines assert (a failed one calls __assertfail, which traps the kernel). Like the C
// header, this one has no include guard and re-reads NDEBUG at each inclusion; the active form is
// the expansion NVRTC predefines.
constexpr const char* assert_h = R"shim(
#undef assert
#ifdef NDEBUG
#define assert(e) ((void)0)
#else
#define assert(e) ((e) ? static_cast<void>(0) : __assertfail(#e, __FILE__, __LINE__, __PRETTY_FUNCTION__, sizeof(char)))
#endif
)shim";

// ---------------------------------------------------------------------------------------------
// [SECTION] C++ wrappers: the C header plus its names in std::
// ---------------------------------------------------------------------------------------------

constexpr const char* cstddef = R"shim(
#ifndef CUDALAB_SHIM_CSTDDEF
#define CUDALAB_SHIM_CSTDDEF
#include <stddef.h>
namespace std {
using ::size_t;
using ::ptrdiff_t;
using ::nullptr_t;
}
#endif
)shim";

constexpr const char* cstdint = R"shim(
#ifndef CUDALAB_SHIM_CSTDINT
#define CUDALAB_SHIM_CSTDINT
#include <stdint.h>
namespace std {
using ::int8_t; using ::int16_t; using ::int32_t; using ::int64_t;
using ::uint8_t; using ::uint16_t; using ::uint32_t; using ::uint64_t;
using ::int_least8_t; using ::int_least16_t; using ::int_least32_t; using ::int_least64_t;
using ::uint_least8_t; using ::uint_least16_t; using ::uint_least32_t; using ::uint_least64_t;
using ::int_fast8_t; using ::int_fast16_t; using ::int_fast32_t; using ::int_fast64_t;
using ::uint_fast8_t; using ::uint_fast16_t; using ::uint_fast32_t; using ::uint_fast64_t;
using ::intptr_t; using ::uintptr_t; using ::intmax_t; using ::uintmax_t;
}
#endif
)shim";

constexpr const char* climits = R"shim(
#include <limits.h>
)shim";

constexpr const char* cfloat = R"shim(
#include <float.h>
)shim";

// Only functions NVRTC declares are exported (each was checked to exist). The host <cmath> of g++
// also makes std::min/std::max visible, and nvcc users rely on that, hence <__cudalab_algobase>.
constexpr const char* cmath = R"shim(
#ifndef CUDALAB_SHIM_CMATH
#define CUDALAB_SHIM_CMATH
#include <math.h>
#include <__cudalab_algobase>
namespace std {
using ::abs; using ::fabs; using ::fmod; using ::remainder; using ::remquo; using ::fma;
using ::fmax; using ::fmin; using ::fdim; using ::nan;
using ::exp; using ::exp2; using ::expm1; using ::log; using ::log10; using ::log2; using ::log1p;
using ::pow; using ::sqrt; using ::cbrt; using ::hypot;
using ::sin; using ::cos; using ::tan; using ::asin; using ::acos; using ::atan; using ::atan2;
using ::sinh; using ::cosh; using ::tanh; using ::asinh; using ::acosh; using ::atanh;
using ::erf; using ::erfc; using ::tgamma; using ::lgamma;
using ::ceil; using ::floor; using ::trunc; using ::round; using ::lround; using ::llround;
using ::nearbyint; using ::rint; using ::lrint; using ::llrint;
using ::frexp; using ::ldexp; using ::modf; using ::scalbn; using ::scalbln; using ::ilogb;
using ::logb; using ::nextafter; using ::copysign;
using ::isfinite; using ::isinf; using ::isnan; using ::signbit;
using ::fabsf; using ::fmodf; using ::remainderf; using ::remquof; using ::fmaf; using ::fmaxf;
using ::fminf; using ::fdimf; using ::nanf;
using ::expf; using ::exp2f; using ::expm1f; using ::logf; using ::log10f; using ::log2f;
using ::log1pf; using ::powf; using ::sqrtf; using ::cbrtf; using ::hypotf;
using ::sinf; using ::cosf; using ::tanf; using ::asinf; using ::acosf; using ::atanf;
using ::atan2f; using ::sinhf; using ::coshf; using ::tanhf; using ::asinhf; using ::acoshf;
using ::atanhf; using ::erff; using ::erfcf; using ::tgammaf; using ::lgammaf;
using ::ceilf; using ::floorf; using ::truncf; using ::roundf; using ::lroundf; using ::llroundf;
using ::nearbyintf; using ::rintf; using ::lrintf; using ::llrintf;
using ::frexpf; using ::ldexpf; using ::modff; using ::scalbnf; using ::scalblnf; using ::ilogbf;
using ::logbf; using ::nextafterf; using ::copysignf;
}
#endif
)shim";

constexpr const char* cstdlib = R"shim(
#ifndef CUDALAB_SHIM_CSTDLIB
#define CUDALAB_SHIM_CSTDLIB
#include <stdlib.h>
namespace std {
using ::size_t;
using ::malloc; using ::free;
using ::abs; using ::labs; using ::llabs;
}
#endif
)shim";

constexpr const char* cstdio = R"shim(
#ifndef CUDALAB_SHIM_CSTDIO
#define CUDALAB_SHIM_CSTDIO
#include <stdio.h>
namespace std {
using ::size_t;
using ::printf;
}
#endif
)shim";

constexpr const char* cstring = R"shim(
#ifndef CUDALAB_SHIM_CSTRING
#define CUDALAB_SHIM_CSTRING
#include <string.h>
namespace std {
using ::size_t;
using ::memcpy; using ::memset;
}
#endif
)shim";

constexpr const char* cassert = R"shim(
#include <assert.h>
)shim";

// ---------------------------------------------------------------------------------------------
// [SECTION] C++ library subset: what kernels use; every function is __host__ __device__
// ---------------------------------------------------------------------------------------------

// The traits kernels use for templates over element types. Where a trait needs compiler help
// (is_class, is_enum, ...) it uses the EDG intrinsic that NVRTC accepts.
constexpr const char* type_traits = R"shim(
#ifndef CUDALAB_SHIM_TYPE_TRAITS
#define CUDALAB_SHIM_TYPE_TRAITS
namespace std {
template <class T, T v> struct integral_constant {
    static constexpr T value = v;
    typedef T value_type;
    typedef integral_constant type;
    __host__ __device__ constexpr operator value_type() const noexcept { return value; }
    __host__ __device__ constexpr value_type operator()() const noexcept { return value; }
};
template <bool b> using bool_constant = integral_constant<bool, b>;
typedef bool_constant<true> true_type;
typedef bool_constant<false> false_type;

template <class T, class U> struct is_same : false_type {};
template <class T> struct is_same<T, T> : true_type {};
template <bool b, class T = void> struct enable_if {};
template <class T> struct enable_if<true, T> { typedef T type; };
template <bool b, class T, class F> struct conditional { typedef T type; };
template <class T, class F> struct conditional<false, T, F> { typedef F type; };
template <class...> using void_t = void;
template <class T> struct type_identity { typedef T type; };

template <class T> struct remove_const { typedef T type; };
template <class T> struct remove_const<const T> { typedef T type; };
template <class T> struct remove_volatile { typedef T type; };
template <class T> struct remove_volatile<volatile T> { typedef T type; };
template <class T> struct remove_cv { typedef typename remove_volatile<typename remove_const<T>::type>::type type; };
template <class T> struct remove_reference { typedef T type; };
template <class T> struct remove_reference<T&> { typedef T type; };
template <class T> struct remove_reference<T&&> { typedef T type; };
template <class T> struct remove_cvref { typedef typename remove_cv<typename remove_reference<T>::type>::type type; };
template <class T> struct remove_pointer { typedef T type; };
template <class T> struct remove_pointer<T*> { typedef T type; };
template <class T> struct remove_pointer<T* const> { typedef T type; };
template <class T> struct remove_pointer<T* volatile> { typedef T type; };
template <class T> struct remove_pointer<T* const volatile> { typedef T type; };
template <class T> struct remove_extent { typedef T type; };
template <class T> struct remove_extent<T[]> { typedef T type; };
template <class T, decltype(sizeof(0)) n> struct remove_extent<T[n]> { typedef T type; };
template <class T> struct add_const { typedef const T type; };
template <class T> struct add_volatile { typedef volatile T type; };
template <class T> struct add_cv { typedef const volatile T type; };
template <class T> struct add_pointer { typedef typename remove_reference<T>::type* type; };
template <class T> struct add_lvalue_reference { typedef T& type; };
template <> struct add_lvalue_reference<void> { typedef void type; };
template <class T> struct add_rvalue_reference { typedef T&& type; };
template <> struct add_rvalue_reference<void> { typedef void type; };

template <class T> struct is_const : false_type {};
template <class T> struct is_const<const T> : true_type {};
template <class T> struct is_volatile : false_type {};
template <class T> struct is_volatile<volatile T> : true_type {};
template <class T> struct is_lvalue_reference : false_type {};
template <class T> struct is_lvalue_reference<T&> : true_type {};
template <class T> struct is_rvalue_reference : false_type {};
template <class T> struct is_rvalue_reference<T&&> : true_type {};
template <class T> struct is_reference : bool_constant<is_lvalue_reference<T>::value || is_rvalue_reference<T>::value> {};
template <class T> struct __cudalab_is_pointer : false_type {};
template <class T> struct __cudalab_is_pointer<T*> : true_type {};
template <class T> struct is_pointer : __cudalab_is_pointer<typename remove_cv<T>::type> {};
template <class T> struct is_array : false_type {};
template <class T> struct is_array<T[]> : true_type {};
template <class T, decltype(sizeof(0)) n> struct is_array<T[n]> : true_type {};
// const has no effect on function and reference types.
template <class T> struct is_function : bool_constant<!is_const<const T>::value && !is_reference<T>::value> {};
template <class T> struct is_void : is_same<typename remove_cv<T>::type, void> {};
template <class T> struct is_null_pointer : is_same<typename remove_cv<T>::type, decltype(nullptr)> {};

template <class T> struct __cudalab_is_integral : false_type {};
template <> struct __cudalab_is_integral<bool> : true_type {};
template <> struct __cudalab_is_integral<char> : true_type {};
template <> struct __cudalab_is_integral<signed char> : true_type {};
template <> struct __cudalab_is_integral<unsigned char> : true_type {};
template <> struct __cudalab_is_integral<wchar_t> : true_type {};
template <> struct __cudalab_is_integral<char16_t> : true_type {};
template <> struct __cudalab_is_integral<char32_t> : true_type {};
template <> struct __cudalab_is_integral<short> : true_type {};
template <> struct __cudalab_is_integral<unsigned short> : true_type {};
template <> struct __cudalab_is_integral<int> : true_type {};
template <> struct __cudalab_is_integral<unsigned int> : true_type {};
template <> struct __cudalab_is_integral<long> : true_type {};
template <> struct __cudalab_is_integral<unsigned long> : true_type {};
template <> struct __cudalab_is_integral<long long> : true_type {};
template <> struct __cudalab_is_integral<unsigned long long> : true_type {};
template <class T> struct is_integral : __cudalab_is_integral<typename remove_cv<T>::type> {};
template <class T> struct __cudalab_is_floating_point : false_type {};
template <> struct __cudalab_is_floating_point<float> : true_type {};
template <> struct __cudalab_is_floating_point<double> : true_type {};
template <> struct __cudalab_is_floating_point<long double> : true_type {};
template <class T> struct is_floating_point : __cudalab_is_floating_point<typename remove_cv<T>::type> {};
template <class T> struct is_arithmetic : bool_constant<is_integral<T>::value || is_floating_point<T>::value> {};
template <class T> struct is_fundamental : bool_constant<is_arithmetic<T>::value || is_void<T>::value || is_null_pointer<T>::value> {};
template <class T, bool = is_arithmetic<T>::value> struct __cudalab_is_signed : bool_constant<T(-1) < T(0)> {};
template <class T> struct __cudalab_is_signed<T, false> : false_type {};
template <class T> struct is_signed : __cudalab_is_signed<typename remove_cv<T>::type> {};
template <class T, bool = is_integral<T>::value> struct __cudalab_is_unsigned : bool_constant<T(0) < T(-1)> {};
template <class T> struct __cudalab_is_unsigned<T, false> : false_type {};
template <class T> struct is_unsigned : __cudalab_is_unsigned<typename remove_cv<T>::type> {};
template <class T> struct is_class : bool_constant<__is_class(T)> {};
template <class T> struct is_enum : bool_constant<__is_enum(T)> {};
template <class T> struct is_union : bool_constant<__is_union(T)> {};
template <class B, class D> struct is_base_of : bool_constant<__is_base_of(B, D)> {};
template <class T> struct is_trivially_copyable : bool_constant<__is_trivially_copyable(T)> {};
template <class T> struct is_scalar : bool_constant<is_arithmetic<T>::value || is_enum<T>::value || is_pointer<T>::value || is_null_pointer<T>::value> {};

template <class T> struct decay {
    typedef typename remove_reference<T>::type U;
    typedef typename conditional<is_array<U>::value, typename remove_extent<U>::type*,
        typename conditional<is_function<U>::value, U*, typename remove_cv<U>::type>::type>::type type;
};

template <class T> struct make_unsigned;
template <> struct make_unsigned<char> { typedef unsigned char type; };
template <> struct make_unsigned<signed char> { typedef unsigned char type; };
template <> struct make_unsigned<unsigned char> { typedef unsigned char type; };
template <> struct make_unsigned<short> { typedef unsigned short type; };
template <> struct make_unsigned<unsigned short> { typedef unsigned short type; };
template <> struct make_unsigned<int> { typedef unsigned int type; };
template <> struct make_unsigned<unsigned int> { typedef unsigned int type; };
template <> struct make_unsigned<long> { typedef unsigned long type; };
template <> struct make_unsigned<unsigned long> { typedef unsigned long type; };
template <> struct make_unsigned<long long> { typedef unsigned long long type; };
template <> struct make_unsigned<unsigned long long> { typedef unsigned long long type; };
template <class T> struct make_signed;
template <> struct make_signed<char> { typedef signed char type; };
template <> struct make_signed<signed char> { typedef signed char type; };
template <> struct make_signed<unsigned char> { typedef signed char type; };
template <> struct make_signed<short> { typedef short type; };
template <> struct make_signed<unsigned short> { typedef short type; };
template <> struct make_signed<int> { typedef int type; };
template <> struct make_signed<unsigned int> { typedef int type; };
template <> struct make_signed<long> { typedef long type; };
template <> struct make_signed<unsigned long> { typedef long type; };
template <> struct make_signed<long long> { typedef long long type; };
template <> struct make_signed<unsigned long long> { typedef long long type; };

template <bool b, class T = void> using enable_if_t = typename enable_if<b, T>::type;
template <bool b, class T, class F> using conditional_t = typename conditional<b, T, F>::type;
template <class T> using remove_const_t = typename remove_const<T>::type;
template <class T> using remove_volatile_t = typename remove_volatile<T>::type;
template <class T> using remove_cv_t = typename remove_cv<T>::type;
template <class T> using remove_reference_t = typename remove_reference<T>::type;
template <class T> using remove_cvref_t = typename remove_cvref<T>::type;
template <class T> using remove_pointer_t = typename remove_pointer<T>::type;
template <class T> using remove_extent_t = typename remove_extent<T>::type;
template <class T> using add_const_t = typename add_const<T>::type;
template <class T> using add_pointer_t = typename add_pointer<T>::type;
template <class T> using decay_t = typename decay<T>::type;
template <class T> using make_unsigned_t = typename make_unsigned<T>::type;
template <class T> using make_signed_t = typename make_signed<T>::type;
template <class T> using type_identity_t = typename type_identity<T>::type;

template <class T, class U> inline constexpr bool is_same_v = is_same<T, U>::value;
template <class T> inline constexpr bool is_const_v = is_const<T>::value;
template <class T> inline constexpr bool is_volatile_v = is_volatile<T>::value;
template <class T> inline constexpr bool is_reference_v = is_reference<T>::value;
template <class T> inline constexpr bool is_lvalue_reference_v = is_lvalue_reference<T>::value;
template <class T> inline constexpr bool is_rvalue_reference_v = is_rvalue_reference<T>::value;
template <class T> inline constexpr bool is_pointer_v = is_pointer<T>::value;
template <class T> inline constexpr bool is_array_v = is_array<T>::value;
template <class T> inline constexpr bool is_function_v = is_function<T>::value;
template <class T> inline constexpr bool is_void_v = is_void<T>::value;
template <class T> inline constexpr bool is_null_pointer_v = is_null_pointer<T>::value;
template <class T> inline constexpr bool is_integral_v = is_integral<T>::value;
template <class T> inline constexpr bool is_floating_point_v = is_floating_point<T>::value;
template <class T> inline constexpr bool is_arithmetic_v = is_arithmetic<T>::value;
template <class T> inline constexpr bool is_fundamental_v = is_fundamental<T>::value;
template <class T> inline constexpr bool is_signed_v = is_signed<T>::value;
template <class T> inline constexpr bool is_unsigned_v = is_unsigned<T>::value;
template <class T> inline constexpr bool is_class_v = is_class<T>::value;
template <class T> inline constexpr bool is_enum_v = is_enum<T>::value;
template <class T> inline constexpr bool is_union_v = is_union<T>::value;
template <class B, class D> inline constexpr bool is_base_of_v = is_base_of<B, D>::value;
template <class T> inline constexpr bool is_trivially_copyable_v = is_trivially_copyable<T>::value;
template <class T> inline constexpr bool is_scalar_v = is_scalar<T>::value;
}
#endif
)shim";

// std::move and std::forward are NVRTC built-ins (declaring them again makes calls ambiguous).
constexpr const char* utility = R"shim(
#ifndef CUDALAB_SHIM_UTILITY
#define CUDALAB_SHIM_UTILITY
#include <type_traits>
namespace std {
template <class T> __host__ __device__ typename add_rvalue_reference<T>::type declval() noexcept;
template <class T> __host__ __device__ constexpr void swap(T& a, T& b) noexcept {
    T t = static_cast<T&&>(a);
    a = static_cast<T&&>(b);
    b = static_cast<T&&>(t);
}
template <class T, class U = T> __host__ __device__ constexpr T exchange(T& obj, U&& value) {
    T old = static_cast<T&&>(obj);
    obj = static_cast<U&&>(value);
    return old;
}
}
#endif
)shim";

// std::initializer_list is an NVRTC built-in; the header only has to exist.
constexpr const char* initializer_list = R"shim(
)shim";

// std::min/max/clamp as templates, as in the standard; NVRTC's own ::min/::max overloads stay
// untouched (and win overload resolution for plain calls, as under nvcc).
constexpr const char* cudalab_algobase = R"shim(
#ifndef CUDALAB_SHIM_ALGOBASE
#define CUDALAB_SHIM_ALGOBASE
namespace std {
template <class T> __host__ __device__ constexpr const T& min(const T& a, const T& b) { return (b < a) ? b : a; }
template <class T> __host__ __device__ constexpr const T& max(const T& a, const T& b) { return (a < b) ? b : a; }
template <class T, class Compare> __host__ __device__ constexpr const T& min(const T& a, const T& b, Compare less) { return less(b, a) ? b : a; }
template <class T, class Compare> __host__ __device__ constexpr const T& max(const T& a, const T& b, Compare less) { return less(a, b) ? b : a; }
template <class T> __host__ __device__ constexpr T min(initializer_list<T> values) {
    const T* best = values.begin();
    for (const T* v = values.begin(); v != values.end(); ++v) best = (*v < *best) ? v : best;
    return *best;
}
template <class T> __host__ __device__ constexpr T max(initializer_list<T> values) {
    const T* best = values.begin();
    for (const T* v = values.begin(); v != values.end(); ++v) best = (*best < *v) ? v : best;
    return *best;
}
template <class T> __host__ __device__ constexpr const T& clamp(const T& v, const T& lo, const T& hi) { return (v < lo) ? lo : (hi < v) ? hi : v; }
}
#endif
)shim";

constexpr const char* algorithm = R"shim(
#include <__cudalab_algobase>
#include <utility>
)shim";

// Floating-point limits are bit patterns through __builtin_bit_cast (constexpr under NVRTC).
constexpr const char* limits = R"shim(
#ifndef CUDALAB_SHIM_LIMITS
#define CUDALAB_SHIM_LIMITS
namespace std {
enum float_round_style { round_indeterminate = -1, round_toward_zero = 0, round_to_nearest = 1 };
template <class T> struct numeric_limits {
    static constexpr bool is_specialized = false;
    static constexpr bool is_signed = false;
    static constexpr bool is_integer = false;
    static constexpr bool is_exact = false;
    static constexpr bool has_infinity = false;
    static constexpr bool has_quiet_NaN = false;
    static constexpr bool is_iec559 = false;
    static constexpr bool is_bounded = false;
    static constexpr int digits = 0;
    static constexpr int digits10 = 0;
    static constexpr int radix = 0;
    __host__ __device__ static constexpr T min() noexcept { return T(); }
    __host__ __device__ static constexpr T max() noexcept { return T(); }
    __host__ __device__ static constexpr T lowest() noexcept { return T(); }
    __host__ __device__ static constexpr T epsilon() noexcept { return T(); }
    __host__ __device__ static constexpr T infinity() noexcept { return T(); }
    __host__ __device__ static constexpr T quiet_NaN() noexcept { return T(); }
    __host__ __device__ static constexpr T denorm_min() noexcept { return T(); }
};
template <class T> struct numeric_limits<const T> : numeric_limits<T> {};
template <class T> struct numeric_limits<volatile T> : numeric_limits<T> {};
template <class T> struct numeric_limits<const volatile T> : numeric_limits<T> {};

// digits10 = floor(digits * log10(2)); 643/2136 approximates log10(2) closely enough for <= 64.
#define CUDALAB_INTEGER_LIMITS(T, SIGNED, DIGITS, MIN, MAX)                                            \
template <> struct numeric_limits<T> {                                                          \
    static constexpr bool is_specialized = true;                                                \
    static constexpr bool is_signed = SIGNED;                                                   \
    static constexpr bool is_integer = true;                                                    \
    static constexpr bool is_exact = true;                                                      \
    static constexpr bool has_infinity = false;                                                 \
    static constexpr bool has_quiet_NaN = false;                                                \
    static constexpr bool is_iec559 = false;                                                    \
    static constexpr bool is_bounded = true;                                                    \
    static constexpr float_round_style round_style = round_toward_zero;                         \
    static constexpr int digits = DIGITS;                                                       \
    static constexpr int digits10 = digits * 643 / 2136;                                        \
    static constexpr int radix = 2;                                                             \
    __host__ __device__ static constexpr T min() noexcept { return MIN; }                       \
    __host__ __device__ static constexpr T max() noexcept { return MAX; }                       \
    __host__ __device__ static constexpr T lowest() noexcept { return MIN; }                    \
    __host__ __device__ static constexpr T epsilon() noexcept { return 0; }                     \
    __host__ __device__ static constexpr T infinity() noexcept { return 0; }                    \
    __host__ __device__ static constexpr T quiet_NaN() noexcept { return 0; }                   \
    __host__ __device__ static constexpr T denorm_min() noexcept { return 0; }                  \
};
CUDALAB_INTEGER_LIMITS(bool, false, 1, false, true)
CUDALAB_INTEGER_LIMITS(char, (char(-1) < 0), (char(-1) < 0 ? 7 : 8), (char(-1) < 0 ? char(-128) : char(0)), (char(-1) < 0 ? char(127) : char(255)))
CUDALAB_INTEGER_LIMITS(signed char, true, 7, (signed char)(-128), (signed char)127)
CUDALAB_INTEGER_LIMITS(unsigned char, false, 8, (unsigned char)0, (unsigned char)255)
CUDALAB_INTEGER_LIMITS(short, true, 15, (short)(-32767 - 1), (short)32767)
CUDALAB_INTEGER_LIMITS(unsigned short, false, 16, (unsigned short)0, (unsigned short)65535)
CUDALAB_INTEGER_LIMITS(int, true, 31, -2147483647 - 1, 2147483647)
CUDALAB_INTEGER_LIMITS(unsigned int, false, 32, 0U, 4294967295U)
CUDALAB_INTEGER_LIMITS(long, true, int(sizeof(long) * 8 - 1), (sizeof(long) == 8 ? -9223372036854775807L - 1 : -2147483647L - 1), (sizeof(long) == 8 ? 9223372036854775807L : 2147483647L))
CUDALAB_INTEGER_LIMITS(unsigned long, false, int(sizeof(long) * 8), 0UL, ~0UL)
CUDALAB_INTEGER_LIMITS(long long, true, 63, -9223372036854775807LL - 1, 9223372036854775807LL)
CUDALAB_INTEGER_LIMITS(unsigned long long, false, 64, 0ULL, ~0ULL)
#undef CUDALAB_INTEGER_LIMITS

#define CUDALAB_FLOAT_LIMITS(T, BITS, DIGITS, DIGITS10, MAX_DIGITS10, MIN_EXP, MAX_EXP, MIN_EXP10,  \
                             MAX_EXP10, MIN, MAX, EPSILON, INF_BITS, NAN_BITS, DENORM_MIN)     \
template <> struct numeric_limits<T> {                                                          \
    static constexpr bool is_specialized = true;                                                \
    static constexpr bool is_signed = true;                                                     \
    static constexpr bool is_integer = false;                                                   \
    static constexpr bool is_exact = false;                                                     \
    static constexpr bool has_infinity = true;                                                  \
    static constexpr bool has_quiet_NaN = true;                                                 \
    static constexpr bool is_iec559 = true;                                                     \
    static constexpr bool is_bounded = true;                                                    \
    static constexpr float_round_style round_style = round_to_nearest;                          \
    static constexpr int digits = DIGITS;                                                       \
    static constexpr int digits10 = DIGITS10;                                                   \
    static constexpr int max_digits10 = MAX_DIGITS10;                                           \
    static constexpr int radix = 2;                                                             \
    static constexpr int min_exponent = MIN_EXP;                                                \
    static constexpr int max_exponent = MAX_EXP;                                                \
    static constexpr int min_exponent10 = MIN_EXP10;                                            \
    static constexpr int max_exponent10 = MAX_EXP10;                                            \
    __host__ __device__ static constexpr T min() noexcept { return MIN; }                       \
    __host__ __device__ static constexpr T max() noexcept { return MAX; }                       \
    __host__ __device__ static constexpr T lowest() noexcept { return -MAX; }                   \
    __host__ __device__ static constexpr T epsilon() noexcept { return EPSILON; }               \
    __host__ __device__ static constexpr T round_error() noexcept { return T(0.5); }            \
    __host__ __device__ static constexpr T infinity() noexcept { return __builtin_bit_cast(T, (BITS)INF_BITS); } \
    __host__ __device__ static constexpr T quiet_NaN() noexcept { return __builtin_bit_cast(T, (BITS)NAN_BITS); } \
    __host__ __device__ static constexpr T denorm_min() noexcept { return DENORM_MIN; }         \
};
CUDALAB_FLOAT_LIMITS(float, unsigned int, 24, 6, 9, -125, 128, -37, 38, 0x1p-126F, 0x1.fffffep127F,
                     0x1p-23F, 0x7f800000U, 0x7fc00000U, 0x1p-149F)
CUDALAB_FLOAT_LIMITS(double, unsigned long long, 53, 15, 17, -1021, 1024, -307, 308, 0x1p-1022,
                     0x1.fffffffffffffp1023, 0x1p-52, 0x7ff0000000000000ULL, 0x7ff8000000000000ULL,
                     0x1p-1074)
#undef CUDALAB_FLOAT_LIMITS
}
#endif
)shim";

// ---------------------------------------------------------------------------------------------
// [SECTION] CUDA headers
// ---------------------------------------------------------------------------------------------

// The toolkit's cuda_runtime.h is mostly host API and pulls in host headers; everything a kernel
// uses from it (built-in variables, vector types, intrinsics, atomics) NVRTC already provides.
// What nvcc's implicit cuda_runtime.h adds on top (std math, INFINITY, M_PI) is in the prelude.
constexpr const char* cuda_runtime_h = R"shim(
#include <__cudalab_prelude.h>
)shim";

// The driver API is host code only; a kernel file may include it out of habit.
constexpr const char* cuda_h = R"shim(
)shim";

// threadIdx, blockIdx, blockDim, gridDim and warpSize are NVRTC built-ins.
constexpr const char* device_launch_parameters_h = R"shim(
)shim";

// ---------------------------------------------------------------------------------------------
// [SECTION] The prelude and the table
// ---------------------------------------------------------------------------------------------

// Pre-included before the learner's file; see prelude_shim_name for why.
constexpr const char* prelude = R"shim(
#ifndef CUDALAB_SHIM_PRELUDE
#define CUDALAB_SHIM_PRELUDE
#include <cstddef>
#include <cmath>
#include <cstdlib>
#include <limits>
#endif
)shim";

constexpr std::array shims = {
    IncludeShim{"stddef.h", stddef_h},
    IncludeShim{"stdint.h", stdint_h},
    IncludeShim{"limits.h", limits_h},
    IncludeShim{"float.h", float_h},
    IncludeShim{"math.h", math_h},
    IncludeShim{"stdlib.h", stdlib_h},
    IncludeShim{"stdio.h", stdio_h},
    IncludeShim{"string.h", string_h},
    IncludeShim{"assert.h", assert_h},
    IncludeShim{"cstddef", cstddef},
    IncludeShim{"cstdint", cstdint},
    IncludeShim{"climits", climits},
    IncludeShim{"cfloat", cfloat},
    IncludeShim{"cmath", cmath},
    IncludeShim{"cstdlib", cstdlib},
    IncludeShim{"cstdio", cstdio},
    IncludeShim{"cstring", cstring},
    IncludeShim{"cassert", cassert},
    IncludeShim{"type_traits", type_traits},
    IncludeShim{"utility", utility},
    IncludeShim{"initializer_list", initializer_list},
    IncludeShim{"__cudalab_algobase", cudalab_algobase},
    IncludeShim{"algorithm", algorithm},
    IncludeShim{"limits", limits},
    IncludeShim{"cuda_runtime.h", cuda_runtime_h},
    IncludeShim{"cuda_runtime_api.h", cuda_runtime_h},
    IncludeShim{"cuda.h", cuda_h},
    IncludeShim{"device_launch_parameters.h", device_launch_parameters_h},
    IncludeShim{prelude_shim_name, prelude},
};

}  // namespace

std::span<const IncludeShim> include_shims() { return shims; }

}  // namespace cudalab::compiler
