#!/usr/bin/env bash
# Builds src/zarr/codecs/wasm/decoders.wasm: the zstd, lz4 and blosc decoders (decoders.c, lz4-steps.c) compiled to
# WebAssembly from Debian bookworm's sources of zstd 1.5.4, lz4 1.9.4, c-blosc 1.21.3 and zlib 1.2.13 (blosc's
# zlib compressor), with clang 19 and wasi-libc; blosc's shuffle.c (SIMD for x86 only) is replaced by shuffle-simd.c,
# and snappy (C++) by snappy-decode.c.
# The sources are fetched with `apt-get source` (deb-src lists kept in the build folder, the machine's apt setup
# untouched) and checked against the digests below.
# Needs: apt-get install clang-19 lld-19 wasi-libc libclang-rt-19-dev-wasm32
# Usage: scripts/build-wasm-codecs.sh [output.wasm]   (test/wasm-codecs.test.ts rebuilds and compares, where clang-19 is)
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$root/src/zarr/codecs/wasm/decoders.wasm}"
# The Debian sources are kept in a fixed folder between builds; each build compiles in a folder of its own (two
# builds at once do not meet), whose path the compiler is told to drop, so the bytes are the same whatever it is.
work=/tmp/dt64-export-wasm-codecs
build="$(mktemp -d /tmp/dt64-export-wasm-build.XXXXXX)"
trap 'rm -rf "$build"' EXIT
glue="$root/src/zarr/codecs/wasm"

declare -A digests=(
	[c-blosc_1.21.3+ds.orig.tar.xz]=36a5ca0904135be7b6da02cc93adda2e34fec98286b28172e166f8cad79c8fab
	[libzstd_1.5.4+dfsg2.orig.tar.xz]=8cf4bbb65e77ec348d052c8d6230eba66d435bddf64c8b5be2fcb16880c19953
	[lz4_1.9.4.orig.tar.gz]=0b0e3aa07c8c063ddf40b082bdf7e37a1562bda40a0ff5272957f3e987e0e54b
	[zlib_1.2.13.dfsg.orig.tar.bz2]=71feb7947e3c00ef125f83b79a4e529bde31171e5babe48b391f06758d1ab0a1
)

mkdir -p "$work/apt/parts" "$work/apt/lists/partial" "$work/apt/cache/archives/partial" "$work/sources"
if ! (cd "$work/sources" && sha256sum --status -c <(for f in "${!digests[@]}"; do echo "${digests[$f]}  $f"; done)) 2>/dev/null; then
	cat >"$work/apt/parts/debian-sources.sources" <<'SOURCES'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
	apt=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$work/apt/parts" -o "Dir::State::Lists=$work/apt/lists" -o "Dir::Cache=$work/apt/cache")
	apt-get "${apt[@]}" update >/dev/null
	(cd "$work/sources" && apt-get "${apt[@]}" source --download-only c-blosc=1.21.3+ds-1 libzstd=1.5.4+dfsg2-5 lz4=1.9.4-1 zlib=1:1.2.13.dfsg-1 >/dev/null 2>&1)
	(cd "$work/sources" && sha256sum -c <(for f in "${!digests[@]}"; do echo "${digests[$f]}  $f"; done))
fi
mkdir -p "$build/src" "$build/obj"
for f in "${!digests[@]}"; do tar -xf "$work/sources/$f" -C "$build/src"; done
cp "$glue/decoders.c" "$glue/lz4-steps.c" "$glue/pthread-stubs.c" "$glue/shuffle-simd.c" "$glue/snappy-decode.c" "$build/src/" && cp -r "$glue/include" "$build/src/shim"
# blosc-blocks.c decodes a run of blocks with blosc's own static block decoder and header checks: it is compiled as
# part of blosc.c.
cat "$glue/blosc-blocks.c" >>"$build/src/c-blosc-1.21.3/blosc/blosc.c"

# zstd's decoder, compiled for wasm32 as it is, holds its bit streams in a 32-bit size_t: it refills them twice as
# often and leaves out its fast Huffman loops, which are written for 64-bit containers (85% of a decode's time went
# to the slow HUF_decompress4X2). WebAssembly has 64-bit integers natively, so the decoding half is compiled from a
# copy of the sources whose bit containers are U64: the bit stream (bitstream.h), the Huffman decoder
# (huf_decompress.c) and the sequence decoder (zstd_decompress_block.c) then take the paths of a 64-bit build. What
# stays 32-bit is what is about addresses: size_t itself, and the match-length overflow guard of 32-bit address
# spaces. The compressor (linked for blosc, never called) keeps the original sources.
zdec="$build/src/zstd-decode/lib"
mkdir -p "$build/src/zstd-decode" && cp -r "$build/src/zstd-1.5.4/lib" "$zdec"
edit() { # edit FILE EXPECTED-MATCHES SED-SCRIPT: fails the build if the sources are not the ones this was written for
	local file="$zdec/$1" count="$2" script="$3" before
	before="$(cat "$file")"
	sed -i -e "$script" "$file"
	local changed; changed="$(diff <(echo "$before") "$file" | grep -c '^>' || true)"
	if [[ "$changed" != "$count" ]]; then echo "build-wasm-codecs: expected $count changed lines in $1, got $changed" >&2; exit 1; fi
}
edit common/bitstream.h 12 's/^    size_t   bitContainer;/    U64 bitContainer;/
	s/BIT_getMiddleBits(size_t bitContainer/BIT_getMiddleBits(U64 bitContainer/
	s/MEM_readLEST(/MEM_readLE64(/g
	s/bitD->bitContainer += (size_t)/bitD->bitContainer += (U64)/
	s/^#define STREAM_ACCUMULATOR_MIN    .*/#define STREAM_ACCUMULATOR_MIN STREAM_ACCUMULATOR_MIN_64/'
edit decompress/huf_decompress.c 18 's/MEM_32bits()/0/g
	s/MEM_64bits()/1/g
	s/MEM_readLEST(/MEM_readLE64(/g
	s/sizeof(size_t)/sizeof(U64)/g
	s/^static size_t HUF_initFastDStream/static U64 HUF_initFastDStream/
	s/size_t const value = MEM_readLE64/U64 const value = MEM_readLE64/'
edit decompress/zstd_decompress_block.c 9 '/WILDCOPY_OVERLENGTH/!s/MEM_32bits()/0/g
	s/MEM_64bits()/1/g'
# Counting a 64-bit container's trailing zeros, which the fast Huffman loops do at each reload, takes zstd's 32-bit
# fallback where the ABI is not LP64: two 32-bit counts and a select. WebAssembly counts 64 bits in one instruction
# (i64.ctz), which the builtin compiles to.
edit common/bits.h 1 's/defined(__GNUC__) \&\& (__GNUC__ >= 4) \&\& defined(__LP64__)/defined(__GNUC__) \&\& (__GNUC__ >= 4)/'

replace_block() { # replace_block FILE EXPECTED-CHANGES FIRST LAST < TEXT: the lines from the first holding FIRST through
	# the next holding LAST (fixed strings) become TEXT; fails as edit does, and when the lines are not found
	local file="$zdec/$1" count="$2" before
	before="$(cat "$file")"
	FIRST="$3" LAST="$4" TEXT="$(cat)" awk '
		state == 0 && index($0, ENVIRON["FIRST"]) { state = 1 }
		state == 1 { if (index($0, ENVIRON["LAST"])) { print ENVIRON["TEXT"]; state = 2 } next }
		{ print }
		END { if (state != 2) exit 1 }' <<<"$before" >"$file" || { echo "build-wasm-codecs: the lines to replace are not in $1" >&2; exit 1; }
	local changed; changed="$(diff <(echo "$before") "$file" | grep -c '^>' || true)"
	if [[ "$changed" != "$count" ]]; then echo "build-wasm-codecs: expected $count changed lines in $1, got $changed" >&2; exit 1; fi
}
# The fast double-symbol Huffman loop (HUF_decompress4X2, most of a decode of the bench's chunks, whose literals
# are nearly incompressible) decodes its four streams interleaved, symbol by symbol: V8 has fewer registers to give
# than the four streams' bit containers, positions and the table need, and spills them to the stack, on the chain
# each symbol waits for. Each stream in turn, its five lookups and then its reload, is the same decode (the loop's
# bounds keep the streams' writes apart, and no input is read later, relative to any write, than before, so decoding
# in place keeps its margin): 4-6% less CPU per chunk after the edit above, 9% with it (bench/decode-speed.mjs).
replace_block decompress/huf_decompress.c 4 '/* Do 5 table lookups for each of the first 3 streams */' '} while (op[3] < olimit);' <<'LOOP'
            for (stream = 0; stream < 4; ++stream) {
                for (symbol = 0; symbol < 5; ++symbol) {
                    int const index = (int)(bits[stream] >> 53);
                    HUF_DEltX2 const entry = dtable[index];
                    MEM_write16(op[stream], entry.sequence);
                    bits[stream] <<= (entry.nbBits);
                    op[stream] += (entry.length);
                }
                {
                    int const ctz = ZSTD_countTrailingZeros64(bits[stream]);
                    ip[stream] -= ctz >> 3;
                    bits[stream] = (MEM_read64(ip[stream]) | 1) << (ctz & 7);
                }
            }
        } while (op[3] < olimit);
LOOP

z="$build/src/zstd-1.5.4/lib" l="$build/src/lz4-1.9.4/lib" b="$build/src/c-blosc-1.21.3/blosc" zl="$build/src/zlib-1.2.13.dfsg"
cc=(clang-19 --target=wasm32-wasi --sysroot=/usr -O3 -msimd128 -mbulk-memory -DNDEBUG -ffile-prefix-map="$build"=.
	-I"$build/src/shim" -I"$z" -I"$z/common" -I"$l" -I"$zl" -I"$b"
	-DZSTD_DISABLE_ASM -DZSTD_LEGACY_SUPPORT=0 -DZSTD_TRACE=0 -DHAVE_LZ4 -DHAVE_SNAPPY -DHAVE_ZLIB -DHAVE_ZSTD -w)
sources=(
	"$build/src/decoders.c" "$build/src/lz4-steps.c" "$build/src/pthread-stubs.c" "$build/src/shuffle-simd.c" "$build/src/snappy-decode.c"
	"$zdec"/common/{entropy_common,error_private,fse_decompress,xxhash,zstd_common,debug}.c
	"$zdec"/decompress/{huf_decompress,zstd_ddict,zstd_decompress,zstd_decompress_block}.c
	"$z"/compress/*.c
	"$l"/{lz4,lz4hc}.c
	"$b"/{blosc,blosclz,fastcopy,shuffle-generic,bitshuffle-generic}.c
	"$zl"/{adler32,compress,crc32,deflate,inffast,inflate,inftrees,trees,uncompr,zutil}.c
)
objects=()
for s in "${sources[@]}"; do
	o="$build/obj/$(basename "$(dirname "$s")")-$(basename "$s" .c).o"
	"${cc[@]}" -c "$s" -o "$o"
	objects+=("$o")
done
clang-19 --target=wasm32-wasi --sysroot=/usr -O3 -nostartfiles -Wl,--no-entry -Wl,--strip-all -Wl,--max-memory=4294967296 \
	-Wl,-z,stack-size=1048576 -o "$build/decoders.wasm" "${objects[@]}"

# A file of its own, read by each decode thread: as a base64 literal in a module it cost every thread 3-6 MiB and
# a few ms to parse and decode.
cp "$build/decoders.wasm" "$out"
echo "wrote $out ($(stat -c %s "$build/decoders.wasm") bytes of WebAssembly)"
