/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CRC-32C (Castagnoli), as XFS uses it for v5 metadata.  The SSE4.2
 * instruction is used when the CPU has it; the table is the fallback.
 */
#include "ondisk/crc32c.h"
#include "ondisk/be.h"

#include <errno.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

/* Reflected polynomial 0x82F63B78, one byte at a time. */
static const uint32_t crc32c_table[256] = {
	0x00000000, 0xf26b8303, 0xe13b70f7, 0x1350f3f4, 0xc79a971f, 0x35f1141c,
	0x26a1e7e8, 0xd4ca64eb, 0x8ad958cf, 0x78b2dbcc, 0x6be22838, 0x9989ab3b,
	0x4d43cfd0, 0xbf284cd3, 0xac78bf27, 0x5e133c24, 0x105ec76f, 0xe235446c,
	0xf165b798, 0x030e349b, 0xd7c45070, 0x25afd373, 0x36ff2087, 0xc494a384,
	0x9a879fa0, 0x68ec1ca3, 0x7bbcef57, 0x89d76c54, 0x5d1d08bf, 0xaf768bbc,
	0xbc267848, 0x4e4dfb4b, 0x20bd8ede, 0xd2d60ddd, 0xc186fe29, 0x33ed7d2a,
	0xe72719c1, 0x154c9ac2, 0x061c6936, 0xf477ea35, 0xaa64d611, 0x580f5512,
	0x4b5fa6e6, 0xb93425e5, 0x6dfe410e, 0x9f95c20d, 0x8cc531f9, 0x7eaeb2fa,
	0x30e349b1, 0xc288cab2, 0xd1d83946, 0x23b3ba45, 0xf779deae, 0x05125dad,
	0x1642ae59, 0xe4292d5a, 0xba3a117e, 0x4851927d, 0x5b016189, 0xa96ae28a,
	0x7da08661, 0x8fcb0562, 0x9c9bf696, 0x6ef07595, 0x417b1dbc, 0xb3109ebf,
	0xa0406d4b, 0x522bee48, 0x86e18aa3, 0x748a09a0, 0x67dafa54, 0x95b17957,
	0xcba24573, 0x39c9c670, 0x2a993584, 0xd8f2b687, 0x0c38d26c, 0xfe53516f,
	0xed03a29b, 0x1f682198, 0x5125dad3, 0xa34e59d0, 0xb01eaa24, 0x42752927,
	0x96bf4dcc, 0x64d4cecf, 0x77843d3b, 0x85efbe38, 0xdbfc821c, 0x2997011f,
	0x3ac7f2eb, 0xc8ac71e8, 0x1c661503, 0xee0d9600, 0xfd5d65f4, 0x0f36e6f7,
	0x61c69362, 0x93ad1061, 0x80fde395, 0x72966096, 0xa65c047d, 0x5437877e,
	0x4767748a, 0xb50cf789, 0xeb1fcbad, 0x197448ae, 0x0a24bb5a, 0xf84f3859,
	0x2c855cb2, 0xdeeedfb1, 0xcdbe2c45, 0x3fd5af46, 0x7198540d, 0x83f3d70e,
	0x90a324fa, 0x62c8a7f9, 0xb602c312, 0x44694011, 0x5739b3e5, 0xa55230e6,
	0xfb410cc2, 0x092a8fc1, 0x1a7a7c35, 0xe811ff36, 0x3cdb9bdd, 0xceb018de,
	0xdde0eb2a, 0x2f8b6829, 0x82f63b78, 0x709db87b, 0x63cd4b8f, 0x91a6c88c,
	0x456cac67, 0xb7072f64, 0xa457dc90, 0x563c5f93, 0x082f63b7, 0xfa44e0b4,
	0xe9141340, 0x1b7f9043, 0xcfb5f4a8, 0x3dde77ab, 0x2e8e845f, 0xdce5075c,
	0x92a8fc17, 0x60c37f14, 0x73938ce0, 0x81f80fe3, 0x55326b08, 0xa759e80b,
	0xb4091bff, 0x466298fc, 0x1871a4d8, 0xea1a27db, 0xf94ad42f, 0x0b21572c,
	0xdfeb33c7, 0x2d80b0c4, 0x3ed04330, 0xccbbc033, 0xa24bb5a6, 0x502036a5,
	0x4370c551, 0xb11b4652, 0x65d122b9, 0x97baa1ba, 0x84ea524e, 0x7681d14d,
	0x2892ed69, 0xdaf96e6a, 0xc9a99d9e, 0x3bc21e9d, 0xef087a76, 0x1d63f975,
	0x0e330a81, 0xfc588982, 0xb21572c9, 0x407ef1ca, 0x532e023e, 0xa145813d,
	0x758fe5d6, 0x87e466d5, 0x94b49521, 0x66df1622, 0x38cc2a06, 0xcaa7a905,
	0xd9f75af1, 0x2b9cd9f2, 0xff56bd19, 0x0d3d3e1a, 0x1e6dcdee, 0xec064eed,
	0xc38d26c4, 0x31e6a5c7, 0x22b65633, 0xd0ddd530, 0x0417b1db, 0xf67c32d8,
	0xe52cc12c, 0x1747422f, 0x49547e0b, 0xbb3ffd08, 0xa86f0efc, 0x5a048dff,
	0x8ecee914, 0x7ca56a17, 0x6ff599e3, 0x9d9e1ae0, 0xd3d3e1ab, 0x21b862a8,
	0x32e8915c, 0xc083125f, 0x144976b4, 0xe622f5b7, 0xf5720643, 0x07198540,
	0x590ab964, 0xab613a67, 0xb831c993, 0x4a5a4a90, 0x9e902e7b, 0x6cfbad78,
	0x7fab5e8c, 0x8dc0dd8f, 0xe330a81a, 0x115b2b19, 0x020bd8ed, 0xf0605bee,
	0x24aa3f05, 0xd6c1bc06, 0xc5914ff2, 0x37faccf1, 0x69e9f0d5, 0x9b8273d6,
	0x88d28022, 0x7ab90321, 0xae7367ca, 0x5c18e4c9, 0x4f48173d, 0xbd23943e,
	0xf36e6f75, 0x0105ec76, 0x12551f82, 0xe03e9c81, 0x34f4f86a, 0xc69f7b69,
	0xd5cf889d, 0x27a40b9e, 0x79b737ba, 0x8bdcb4b9, 0x988c474d, 0x6ae7c44e,
	0xbe2da0a5, 0x4c4623a6, 0x5f16d052, 0xad7d5351,
};

static uint32_t crc32c_sw(uint32_t crc, const uint8_t *p, size_t len)
{
	while (len--)
		crc = crc32c_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("sse4.2")))
static uint32_t crc32c_hw(uint32_t crc, const uint8_t *p, size_t len)
{
	uint64_t c = crc;

	while (len && ((uintptr_t)p & 7)) {
		c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
		len--;
	}
	while (len >= 8) {
		uint64_t v;

		memcpy(&v, p, 8);
		c = __builtin_ia32_crc32di(c, v);
		p += 8;
		len -= 8;
	}
	while (len--)
		c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
	return (uint32_t)c;
}

/*
 * Three equal-length buffers at once: the crc32 instruction has a latency
 * of three cycles and a throughput of one, so three independent chains
 * run at about three times the speed of one.
 */
__attribute__((target("sse4.2")))
static void crc32c_hw3(uint32_t crc[3], const uint8_t *const p[3],
		       size_t off, size_t len)
{
	uint64_t c0 = crc[0], c1 = crc[1], c2 = crc[2];
	size_t k;

	for (k = off; k + 8 <= off + len; k += 8) {
		uint64_t v0, v1, v2;

		memcpy(&v0, p[0] + k, 8);
		memcpy(&v1, p[1] + k, 8);
		memcpy(&v2, p[2] + k, 8);
		c0 = __builtin_ia32_crc32di(c0, v0);
		c1 = __builtin_ia32_crc32di(c1, v1);
		c2 = __builtin_ia32_crc32di(c2, v2);
	}
	for (; k < off + len; k++) {
		c0 = __builtin_ia32_crc32qi((uint32_t)c0, p[0][k]);
		c1 = __builtin_ia32_crc32qi((uint32_t)c1, p[1][k]);
		c2 = __builtin_ia32_crc32qi((uint32_t)c2, p[2][k]);
	}
	crc[0] = (uint32_t)c0;
	crc[1] = (uint32_t)c1;
	crc[2] = (uint32_t)c2;
}

/*
 * The same over whole 8-byte words, the crc field (4 bytes at crc_off,
 * which is a multiple of 4) zeroed inside its word by a mask: one loop
 * and no byte steps, for inodes (512 bytes, crc at 252) and the like.
 */
__attribute__((target("sse4.2")))
static void crc32c_hw3_words(uint32_t crc[3], const uint8_t *const p[3],
			     size_t len, size_t crc_off)
{
	uint64_t c0 = crc[0], c1 = crc[1], c2 = crc[2];
	/* little-endian loads: bytes 4..7 of a word are its high half */
	uint64_t mask = crc_off % 8 ? 0x00000000ffffffffull :
				      0xffffffff00000000ull;
	size_t k, w = crc_off / 8 * 8;
	uint64_t v0, v1, v2;

	for (k = 0; k < w; k += 8) {
		memcpy(&v0, p[0] + k, 8);
		memcpy(&v1, p[1] + k, 8);
		memcpy(&v2, p[2] + k, 8);
		c0 = __builtin_ia32_crc32di(c0, v0);
		c1 = __builtin_ia32_crc32di(c1, v1);
		c2 = __builtin_ia32_crc32di(c2, v2);
	}
	memcpy(&v0, p[0] + w, 8);
	memcpy(&v1, p[1] + w, 8);
	memcpy(&v2, p[2] + w, 8);
	c0 = __builtin_ia32_crc32di(c0, v0 & mask);
	c1 = __builtin_ia32_crc32di(c1, v1 & mask);
	c2 = __builtin_ia32_crc32di(c2, v2 & mask);
	for (k = w + 8; k < len; k += 8) {
		memcpy(&v0, p[0] + k, 8);
		memcpy(&v1, p[1] + k, 8);
		memcpy(&v2, p[2] + k, 8);
		c0 = __builtin_ia32_crc32di(c0, v0);
		c1 = __builtin_ia32_crc32di(c1, v1);
		c2 = __builtin_ia32_crc32di(c2, v2);
	}
	crc[0] = (uint32_t)c0;
	crc[1] = (uint32_t)c1;
	crc[2] = (uint32_t)c2;
}

static int have_sse42(void)
{
	return __builtin_cpu_supports("sse4.2");
}

/*
 * Folding with carry-less multiplication, for long buffers: the crc32
 * instruction does 8 bytes a cycle at best (three chains), one chain a
 * third of that; PCLMULQDQ folds 64 bytes in a few multiplications.
 *
 * A 16-byte lane (little-endian) holds message bits whose polynomial,
 * bit i standing for x^(127-i), is A x^64 + B (A: low qword, B: high).
 * Moving it F bits on keeps its remainder mod P if it becomes
 * A (x^(F+64) mod P) + B (x^F mod P).  PCLMULQDQ of such reflected
 * qwords yields the product one bit short of lane order, which the
 * constants absorb: they are x^(F+63) and x^(F-1) mod P, with the
 * coefficient of x^d in bit 63-d (below: K_LO, K_HI per distance).
 * The lane left at the end is the message's last 16 bytes up to a
 * multiple of P, and its CRC is two crc32 instructions.
 */
#define FOLD512_LO	0x1c19243b00000000ull
#define FOLD512_HI	0x75bba45b00000000ull
#define FOLD384_LO	0xa46ef4aa00000000ull
#define FOLD384_HI	0x6051243f00000000ull
#define FOLD256_LO	0x33ccbbbc00000000ull
#define FOLD256_HI	0xa2158b3400000000ull
#define FOLD128_LO	0x3743f7bd00000000ull
#define FOLD128_HI	0x3171d43000000000ull

#define XMM_TARGET	"sse4.2,pclmul"
#define ZMM_TARGET	"sse4.2,pclmul,avx512f,avx512bw,vpclmulqdq"

static int have_pclmul(void)
{
	return have_sse42() && __builtin_cpu_supports("pclmul");
}

static int have_vpclmul(void)
{
	return have_pclmul() && __builtin_cpu_supports("avx512f") &&
	       __builtin_cpu_supports("avx512bw") &&
	       __builtin_cpu_supports("vpclmulqdq");
}

__attribute__((target(XMM_TARGET)))
static inline __m128i fold_xmm(__m128i x, uint64_t lo, uint64_t hi)
{
	__m128i k = _mm_set_epi64x((long long)hi, (long long)lo);

	return _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00),
			     _mm_clmulepi64_si128(x, k, 0x11));
}

__attribute__((target(XMM_TARGET)))
static inline uint32_t lane_crc(__m128i x)
{
	uint64_t c = __builtin_ia32_crc32di(0, (uint64_t)_mm_cvtsi128_si64(x));

	return (uint32_t)__builtin_ia32_crc32di(c, (uint64_t)
						_mm_extract_epi64(x, 1));
}

/* len a multiple of 16, at least 64: four lanes folded 64 bytes on. */
__attribute__((target(XMM_TARGET)))
static uint32_t crc32c_xmm(uint32_t crc, const uint8_t *p, size_t len)
{
	__m128i x0 = _mm_loadu_si128((const void *)p);
	__m128i x1 = _mm_loadu_si128((const void *)(p + 16));
	__m128i x2 = _mm_loadu_si128((const void *)(p + 32));
	__m128i x3 = _mm_loadu_si128((const void *)(p + 48));
	__m128i x;
	size_t o;

	x0 = _mm_xor_si128(x0, _mm_cvtsi32_si128((int)crc));
	for (o = 64; o + 64 <= len; o += 64) {
		x0 = _mm_xor_si128(fold_xmm(x0, FOLD512_LO, FOLD512_HI),
				   _mm_loadu_si128((const void *)(p + o)));
		x1 = _mm_xor_si128(fold_xmm(x1, FOLD512_LO, FOLD512_HI),
				   _mm_loadu_si128((const void *)(p + o + 16)));
		x2 = _mm_xor_si128(fold_xmm(x2, FOLD512_LO, FOLD512_HI),
				   _mm_loadu_si128((const void *)(p + o + 32)));
		x3 = _mm_xor_si128(fold_xmm(x3, FOLD512_LO, FOLD512_HI),
				   _mm_loadu_si128((const void *)(p + o + 48)));
	}
	x = _mm_xor_si128(_mm_xor_si128(fold_xmm(x0, FOLD384_LO, FOLD384_HI),
					fold_xmm(x1, FOLD256_LO, FOLD256_HI)),
			  _mm_xor_si128(fold_xmm(x2, FOLD128_LO, FOLD128_HI),
					x3));
	for (; o < len; o += 16)
		x = _mm_xor_si128(fold_xmm(x, FOLD128_LO, FOLD128_HI),
				  _mm_loadu_si128((const void *)(p + o)));
	return lane_crc(x);
}

/* The four lanes of one register down to one lane's CRC. */
__attribute__((target(ZMM_TARGET)))
static inline uint32_t zmm_reduce(__m512i x)
{
	const __m512i k = _mm512_set_epi64(0, 0,
		(long long)FOLD128_HI, (long long)FOLD128_LO,
		(long long)FOLD256_HI, (long long)FOLD256_LO,
		(long long)FOLD384_HI, (long long)FOLD384_LO);
	__m512i y = _mm512_xor_si512(_mm512_clmulepi64_epi128(x, k, 0x00),
				     _mm512_clmulepi64_epi128(x, k, 0x11));
	__m128i r = _mm_xor_si128(
		_mm_xor_si128(_mm512_extracti32x4_epi32(y, 0),
			      _mm512_extracti32x4_epi32(y, 1)),
		_mm_xor_si128(_mm512_extracti32x4_epi32(y, 2),
			      _mm512_extracti32x4_epi32(x, 3)));

	return lane_crc(r);
}

/*
 * len a multiple of 64: one register of four lanes, folded 64 bytes on
 * per step.  With hole_at < len, the 4 bytes there read as zero (a
 * checksum field; hole_at a multiple of 4).
 */
__attribute__((target(ZMM_TARGET)))
static uint32_t crc32c_zmm(uint32_t crc, const uint8_t *p, size_t len,
			   size_t hole_at)
{
	const __m512i k = _mm512_broadcast_i32x4(
		_mm_set_epi64x((long long)FOLD512_HI, (long long)FOLD512_LO));
	size_t hb = hole_at / 64 * 64;
	__mmask64 hm = ~(0xfull << (hole_at % 64));
	__m512i x, d;
	size_t o;

	x = hb == 0 ? _mm512_maskz_loadu_epi8(hm, p) : _mm512_loadu_si512(p);
	x = _mm512_xor_si512(x, _mm512_zextsi128_si512(
				       _mm_cvtsi32_si128((int)crc)));
	for (o = 64; o < len; o += 64) {
		d = o == hb ? _mm512_maskz_loadu_epi8(hm, p + o) :
			      _mm512_loadu_si512(p + o);
		x = _mm512_ternarylogic_epi64(
			_mm512_clmulepi64_epi128(x, k, 0x00),
			_mm512_clmulepi64_epi128(x, k, 0x11), d, 0x96);
	}
	return zmm_reduce(x);
}
#else
static void crc32c_hw3_words(uint32_t crc[3], const uint8_t *const p[3],
			     size_t len, size_t crc_off)
{
	(void)crc;
	(void)p;
	(void)len;
	(void)crc_off;
}

static void crc32c_hw3(uint32_t crc[3], const uint8_t *const p[3],
		       size_t off, size_t len)
{
	int k;

	for (k = 0; k < 3; k++)
		crc[k] = crc32c_sw(crc[k], p[k] + off, len);
}

static uint32_t crc32c_hw(uint32_t crc, const uint8_t *p, size_t len)
{
	return crc32c_sw(crc, p, len);
}

static int have_sse42(void)
{
	return 0;
}

static int have_pclmul(void)
{
	return 0;
}

static int have_vpclmul(void)
{
	return 0;
}

static uint32_t crc32c_xmm(uint32_t crc, const uint8_t *p, size_t len)
{
	return crc32c_sw(crc, p, len);
}

static uint32_t crc32c_zmm(uint32_t crc, const uint8_t *p, size_t len,
			   size_t hole_at)
{
	(void)hole_at;
	return crc32c_sw(crc, p, len);
}
#endif

/* Folding pays from a few hundred bytes on (set-up and reduction). */
#define FOLD_MIN	256

/* impl: OD_CRC_*; the folds take the whole 64 or 16 bytes, crc32 the rest */
static uint32_t crc32c_by(int impl, uint32_t crc, const uint8_t *p,
			  size_t len)
{
	size_t n;

	if (impl == OD_CRC_VPCLMUL && len >= 64) {
		n = len & ~(size_t)63;
		crc = crc32c_zmm(crc, p, n, n);
		p += n;
		len -= n;
	} else if (impl == OD_CRC_PCLMUL && len >= 64) {
		n = len & ~(size_t)15;
		crc = crc32c_xmm(crc, p, n);
		p += n;
		len -= n;
	}
	if (impl == OD_CRC_TABLE)
		return crc32c_sw(crc, p, len);
	return crc32c_hw(crc, p, len);
}

static int best_impl(size_t len)
{
	if (!have_sse42())
		return OD_CRC_TABLE;
	if (len >= FOLD_MIN && have_vpclmul())
		return OD_CRC_VPCLMUL;
	if (len >= FOLD_MIN && have_pclmul())
		return OD_CRC_PCLMUL;
	return OD_CRC_INSN;
}

uint32_t od_crc32c(uint32_t crc, const void *buf, size_t len)
{
	return crc32c_by(best_impl(len), crc, buf, len);
}

int od_crc32c_by(int impl, uint32_t *crc, const void *buf, size_t len)
{
	static const int have_it[] = { 1, 2, 3, 4 };	/* ordered by need */
	int have = !have_sse42() ? 1 : !have_pclmul() ? 2 :
		   !have_vpclmul() ? 3 : 4;

	if (impl < 0 || impl > OD_CRC_VPCLMUL || have_it[impl] > have)
		return -ENOTSUP;
	*crc = crc32c_by(impl, *crc, buf, len);
	return 0;
}

/*
 * Feeding zeros to the register is linear over GF(2): a 32x32 bit matrix,
 * held as the image of each bit.  One zero bit shifts right and folds the
 * polynomial in where bit 0 was set (reflected CRC-32C, 0x82f63b78).
 */
static uint32_t gf2_apply(const uint32_t m[32], uint32_t v)
{
	uint32_t r = 0;
	int i;

	for (i = 0; v; i++, v >>= 1)
		if (v & 1)
			r ^= m[i];
	return r;
}

static void gf2_square(uint32_t sq[32], const uint32_t m[32])
{
	int i;

	for (i = 0; i < 32; i++)
		sq[i] = gf2_apply(m, m[i]);
}

uint32_t od_crc32c_zeros(uint32_t crc, uint64_t len)
{
	uint32_t m[32], t[32];
	int i;

	/* one zero bit, then squared three times: one zero byte */
	m[0] = 0x82f63b78u;
	for (i = 1; i < 32; i++)
		m[i] = 1u << (i - 1);
	for (i = 0; i < 3; i++) {
		gf2_square(t, m);
		memcpy(m, t, sizeof(m));
	}
	/* then 1, 2, 4, ... zero bytes for each bit of len */
	while (len) {
		if (len & 1)
			crc = gf2_apply(m, crc);
		len >>= 1;
		if (len) {
			gf2_square(t, m);
			memcpy(m, t, sizeof(m));
		}
	}
	return crc;
}

/*
 * XFS checksums the structure with the crc field treated as zero, seed ~0,
 * and stores the complement little-endian (xfs_cksum.h: xfs_start_cksum).
 */
uint32_t od_cksum(const uint8_t *buf, size_t len, size_t crc_off)
{
	static const uint8_t zero[4];
	uint32_t crc = 0xffffffffu;

	/* one pass, the field read as zero where it lies */
	if (len % 64 == 0 && crc_off % 4 == 0 && crc_off + 4 <= len &&
	    best_impl(len) == OD_CRC_VPCLMUL)
		return ~crc32c_zmm(crc, buf, len, crc_off);

	crc = od_crc32c(crc, buf, crc_off);
	crc = od_crc32c(crc, zero, 4);
	crc = od_crc32c(crc, buf + crc_off + 4, len - crc_off - 4);
	return ~crc;
}

void od_cksum3(const uint8_t *const buf[3], size_t len, size_t crc_off,
	       bool ok[3])
{
	static const uint8_t zero[4];
	const uint8_t *const z[3] = { zero, zero, zero };
	uint32_t crc[3] = { 0xffffffffu, 0xffffffffu, 0xffffffffu };
	int k;

	if (crc_off + 4 > len) {
		ok[0] = ok[1] = ok[2] = false;
		return;
	}
	if (!have_sse42()) {
		for (k = 0; k < 3; k++)
			ok[k] = od_cksum_ok(buf[k], len, crc_off);
		return;
	}
	if (len % 64 == 0 && crc_off % 4 == 0 && have_vpclmul()) {
		/* folding one at a time beats three crc32 chains (and the
		 * processor overlaps the three) */
		for (k = 0; k < 3; k++)
			crc[k] = crc32c_zmm(crc[k], buf[k], len, crc_off);
	} else if (len % 8 == 0 && crc_off % 4 == 0) {
		crc32c_hw3_words(crc, buf, len, crc_off);
	} else {
		crc32c_hw3(crc, buf, 0, crc_off);
		crc32c_hw3(crc, z, 0, 4);
		crc32c_hw3(crc, buf, crc_off + 4, len - crc_off - 4);
	}
	for (k = 0; k < 3; k++)
		ok[k] = ~crc[k] == od_get_le32(buf[k] + crc_off);
}

bool od_cksum_ok(const uint8_t *buf, size_t len, size_t crc_off)
{
	if (crc_off + 4 > len)
		return false;
	return od_cksum(buf, len, crc_off) == od_get_le32(buf + crc_off);
}

void od_cksum_set(uint8_t *buf, size_t len, size_t crc_off)
{
	od_put_le32(buf + crc_off, od_cksum(buf, len, crc_off));
}
