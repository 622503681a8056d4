/*
 * One LZ4 block decoded in steps: a window of output at a time, from its input a piece at a time, so that decoding a
 * chunk of 8 MB holds a window, the 64 KiB its matches may reach back to and a piece of input, instead of the whole
 * output and input (numcodecs' lz4 writes a chunk as one block, which liblz4 can only decode whole).
 *
 * A block is accepted exactly when liblz4 1.9.4's LZ4_decompress_safe accepts it into a buffer of the size the
 * chunk declares and decodes it to that size (the caller's check), and decodes to the same bytes; with one
 * exception: a match offset of 0, which the block format calls invalid and liblz4's safe decoder lets through
 * (writing bytes of its own choosing), is refused. The rules, with `end` the declared size and `iend` the input's:
 * - a literal run that ends past end - 12 (MFLIMIT) or whose bytes end past iend - 8 (an offset, a token and the
 *   5 last literals could not follow) must be the block's last: its bytes end exactly at iend, its output by end;
 * - a match's length bytes end by iend - 4;
 * - a match reaches back no further than the output's start, and ends by end - 5 (LASTLITERALS);
 * - an empty output is one zero byte of input, and an empty input is refused.
 * test/lz4-steps.test.ts checks this against liblz4 (also in decoders.wasm) on valid, corrupted and random blocks.
 *
 * The output is written to `buffer`: LZ4_HISTORY bytes, then a window of `window` bytes. The bytes before the
 * window's first unwritten byte are the last bytes decoded (a match reaches back at most 65535). Each call goes on
 * writing where the previous one stopped; once the window is full, it first moves the last LZ4_HISTORY bytes
 * written to the buffer's start and writes from the window's start again (a call that stopped for input leaves
 * the rest of its window to the next: moving the history at each call cost a quarter more bytes copied). The
 * caller takes each call's bytes out after it (s->at, s->produced). The state lives in the caller's memory between
 * calls.
 */
#include <stdint.h>
#include <string.h>

#define DT64_EXPORT(name) __attribute__((export_name(name)))

#define LZ4_HISTORY 65536
#define MFLIMIT 12
#define LASTLITERALS 5
#define MINMATCH 4

enum phase { TOKEN, LITERAL_LENGTH, LITERALS, OFFSET, MATCH_LENGTH, MATCH, DONE };

/* The status of lz4_steps_run. */
enum { STEPS_DONE = 0, STEPS_OUTPUT_FULL = 1, STEPS_NEED_INPUT = 2, STEPS_CORRUPT = -1, STEPS_ZERO_OFFSET = -2 };

typedef struct {
	/*
	 * Read by the caller after each call: the input bytes consumed, the output bytes written, and where they start
	 * in the window.
	 */
	uint32_t consumed;
	uint32_t produced;
	/* Where in the window (bytes after the history) this call's output starts. */
	uint32_t at;
	/* The rest is the decoder's own. */
	uint32_t phase;
	uint32_t token;
	uint32_t offset;
	uint32_t last;
	uint32_t in_total;
	uint32_t out_total;
	uint64_t length;  /* the literal or match bytes still to copy, or the length being read */
	uint64_t in_pos;  /* input bytes consumed since the start */
	uint64_t out_pos; /* output bytes written since the start */
} lz4_steps;

DT64_EXPORT("lz4_steps_bytes") uint32_t dt64_lz4_steps_bytes(void) { return sizeof(lz4_steps); }

/* Starts a block of `in_total` bytes that decodes to `out_total`. */
DT64_EXPORT("lz4_steps_start") void dt64_lz4_steps_start(lz4_steps *s, uint32_t in_total, uint32_t out_total) {
	memset(s, 0, sizeof(*s));
	s->phase = TOKEN;
	s->in_total = in_total;
	s->out_total = out_total;
}

/* Copies `n` bytes a match `offset` back, where the two may overlap (offset < n): the pattern repeats, doubling. */
static inline void copy_match(uint8_t *op, uint32_t offset, uint32_t n) {
	const uint8_t *from = op - offset;
	if (offset >= n) {
		memcpy(op, from, n);
		return;
	}
	if (offset == 1) {
		memset(op, *from, n);
		return;
	}
	/* op - from stays a multiple of the offset, so copying from `from` continues the pattern. */
	uint32_t done = 0;
	while (done < n) {
		uint32_t step = (uint32_t)(op + done - from);
		if (step > n - done) step = n - done;
		memcpy(op + done, from, step);
		done += step;
	}
}

/*
 * Adds a length's bytes after the token's 15 to s->length (bytes of 255 go on, any other ends it): 1 once its last
 * byte is read, 0 when the input runs out first (the next call goes on from there).
 */
static inline int read_length(lz4_steps *s, const uint8_t **in, const uint8_t *iend) {
	const uint8_t *ip = *in;
	int complete = 0;
	while (ip < iend) {
		uint8_t b = *ip++;
		s->length += b;
		if (b != 255) {
			complete = 1;
			break;
		}
	}
	s->in_pos += (uint64_t)(ip - *in);
	*in = ip;
	return complete;
}

/*
 * Whether literals whose bytes end at input byte `in_end` and whose output ends at `out_end` must be the block's
 * last (see the rules above): they end too close to the output's end, or too close to the input's for a match and
 * the last literals to follow.
 */
static inline int ends_block(const lz4_steps *s, uint64_t in_end, uint64_t out_end) {
	return out_end + MFLIMIT > s->out_total || in_end + 2 + 1 + LASTLITERALS > s->in_total;
}

/* Whether a match of `length` bytes `offset` back from output byte `out_pos` breaks a rule: 0, or the status. */
static inline int32_t match_status(const lz4_steps *s, uint64_t out_pos, uint32_t offset, uint64_t length) {
	if (offset == 0) return STEPS_ZERO_OFFSET;
	if (offset > out_pos || out_pos + length + LASTLITERALS > s->out_total) return STEPS_CORRUPT;
	return 0;
}

/*
 * Decides, once a literal run's length is known, whether it is the block's last (see the rules above): 0, or -1
 * when it breaks them.
 */
static inline int literals_begin(lz4_steps *s) {
	uint64_t out_end = s->out_pos + s->length, in_end = s->in_pos + s->length;
	s->last = ends_block(s, in_end, out_end);
	if (s->last && (in_end != s->in_total || out_end > s->out_total)) return -1;
	s->phase = LITERALS;
	return 0;
}

/* A match's checks once its offset and length are known: 0, or STEPS_ZERO_OFFSET or STEPS_CORRUPT. */
static inline int32_t match_begin(lz4_steps *s) {
	int32_t status = match_status(s, s->out_pos, s->offset, s->length);
	if (status == 0) s->phase = MATCH;
	return status;
}

/*
 * Adds the length bytes at `p` after a token's 15 to `length`, as read_length does, if they all lie before `iend`:
 * where the bytes after them start, or NULL when they run past it.
 */
static inline const uint8_t *long_length(const uint8_t *p, const uint8_t *iend, uint64_t *length) {
	uint8_t b;
	do {
		if (p == iend) return 0;
		b = *p++;
		*length += b;
	} while (b == 255);
	return p;
}

/*
 * A sequence with a literal or match length of 15 or more, decoded straight when its length bytes, literals and
 * offset are all staged and its literals and match fit in the window: each copied exactly (memory.copy; the match
 * as copy_match). The checks are the phases' own, in their order, on the same positions: 1 when the sequence was
 * decoded, 0 when it is left to the phases from its token (which refuse what breaks a rule, or wait for input or
 * room).
 */
static inline int long_sequence(lz4_steps *s, const uint8_t **in, const uint8_t *iend, uint8_t **out, uint8_t *oend) {
	const uint8_t *ip = *in, *p = ip + 1;
	uint8_t *op = *out;
	uint32_t token = *ip;
	uint64_t literals = token >> 4, match = token & 15;
	if (literals == 15 && !(p = long_length(p, iend, &literals))) return 0;
	uint64_t in_end = s->in_pos + (uint64_t)(p - ip) + literals, out_end = s->out_pos + literals;
	if (ends_block(s, in_end, out_end)) return 0;
	if ((uint64_t)(iend - p) < literals + 2) return 0;
	const uint8_t *literal = p;
	p += literals;
	uint32_t offset = (uint32_t)p[0] | ((uint32_t)p[1] << 8);
	p += 2;
	if (match == 15) {
		if (!(p = long_length(p, iend, &match))) return 0;
		if (s->in_pos + (uint64_t)(p - ip) + 4 > s->in_total) return 0;
	}
	match += MINMATCH;
	if (match_status(s, out_end, offset, match) != 0) return 0;
	if (literals + match > (uint64_t)(oend - op)) return 0;
	memcpy(op, literal, (size_t)literals);
	op += literals;
	copy_match(op, offset, (uint32_t)match);
	s->in_pos += (uint64_t)(p - ip);
	s->out_pos = out_end + match;
	*in = p;
	*out = op + match;
	return 1;
}

/*
 * The sequences decoded straight. The common one: literals of at most 14 and a match of at most 18, while the
 * staged input and the window have room for a sequence's over-long copies (16 bytes of literals, matches in 16-byte
 * steps, or byte by byte where they overlap closer than that); longer lengths by long_sequence. Anything else (the
 * block's last sequences, a broken rule, a sequence not all staged or past the window) is left to the phases of
 * lz4_steps_run, from its token on: they refuse what breaks a rule.
 */
static inline void short_sequences(lz4_steps *s, const uint8_t **in, const uint8_t *iend, uint8_t **out, uint8_t *oend) {
	const uint8_t *ip = *in;
	uint8_t *op = *out;
	while (iend - ip >= 32 && oend - op >= 64) {
		uint32_t token = *ip, literals = token >> 4, match = token & 15;
		if (literals == 15 || match == 15) {
			*in = ip;
			*out = op;
			if (!long_sequence(s, in, iend, out, oend)) return;
			ip = *in;
			op = *out;
			continue;
		}
		/* The literals may not be the last, and the match's rules hold. */
		uint64_t in_end = s->in_pos + 1 + literals, out_end = s->out_pos + literals;
		if (ends_block(s, in_end, out_end)) break;
		uint32_t offset = (uint32_t)ip[1 + literals] | ((uint32_t)ip[2 + literals] << 8);
		match += MINMATCH;
		if (match_status(s, out_end, offset, match) != 0) break;
		memcpy(op, ip + 1, 16);
		op += literals;
		ip += 3 + literals;
		const uint8_t *from = op - offset;
		if (offset >= 16) {
			memcpy(op, from, 16);
			memcpy(op + 16, from + 16, 16);
		} else {
			for (uint32_t i = 0; i < match; i++) op[i] = from[i];
		}
		op += match;
		s->in_pos = in_end + 2;
		s->out_pos = out_end + match;
	}
	*in = ip;
	*out = op;
}

/*
 * Decodes from `input` (the `available` input bytes not yet consumed; `final` when they are all the block has left)
 * into `buffer` (LZ4_HISTORY bytes of history, then room for `window` bytes), as far as it can: STEPS_DONE when the
 * block is decoded, STEPS_OUTPUT_FULL when the window is full, STEPS_NEED_INPUT when more input is needed, and
 * STEPS_CORRUPT when the block breaks a rule or ends early (STEPS_ZERO_OFFSET when the rule is the zero offset's).
 * s->consumed and s->produced say how far it went.
 */
DT64_EXPORT("lz4_steps_run")
int32_t dt64_lz4_steps_run(lz4_steps *s, const uint8_t *input, uint32_t available, int32_t final, uint8_t *buffer, uint32_t window) {
	/*
	 * The window is written through s->at + s->produced: once full, its last LZ4_HISTORY bytes (with the history's,
	 * where it is shorter) move to the start (those before the output's start are never read).
	 */
	uint32_t fill = s->at + s->produced;
	if (fill >= window) {
		memmove(buffer, buffer + fill, LZ4_HISTORY);
		fill = 0;
	}
	s->at = fill;
	uint8_t *const start = buffer + LZ4_HISTORY + fill, *const oend = buffer + LZ4_HISTORY + window;
	uint8_t *op = start;
	const uint8_t *ip = input, *const iend = input + available;
	int32_t status;
	if (s->out_total == 0) {
		/* liblz4: an empty output is exactly one zero byte of input. */
		status = s->in_total == 1 && available == 1 && input[0] == 0 ? STEPS_DONE : STEPS_CORRUPT;
		if (status == STEPS_DONE) ip++;
		goto out;
	}
	for (;;) {
		switch (s->phase) {
		case TOKEN:
			short_sequences(s, &ip, iend, &op, oend);
			if (ip == iend) goto starved;
			s->token = *ip++;
			s->in_pos++;
			s->length = s->token >> 4;
			if (s->length == 15) {
				s->phase = LITERAL_LENGTH;
				break;
			}
			if (literals_begin(s) < 0) goto corrupt;
			break;
		case LITERAL_LENGTH:
			if (!read_length(s, &ip, iend)) goto starved;
			if (literals_begin(s) < 0) goto corrupt;
			break;
		case LITERALS: {
			uint64_t n = s->length;
			if (n > (uint64_t)(iend - ip)) n = (uint64_t)(iend - ip);
			if (n > (uint64_t)(oend - op)) n = (uint64_t)(oend - op);
			memcpy(op, ip, (size_t)n);
			op += n;
			ip += n;
			s->in_pos += n;
			s->out_pos += n;
			s->length -= n;
			if (s->length > 0) {
				if (op == oend) goto full;
				goto starved;
			}
			if (s->last) {
				s->phase = DONE;
				status = STEPS_DONE;
				goto out;
			}
			s->phase = OFFSET;
			break;
		}
		case OFFSET:
			if (iend - ip < 2) goto starved;
			s->offset = (uint32_t)ip[0] | ((uint32_t)ip[1] << 8);
			ip += 2;
			s->in_pos += 2;
			s->length = s->token & 15;
			if (s->length == 15) {
				s->phase = MATCH_LENGTH;
				break;
			}
			s->length += MINMATCH;
			if ((status = match_begin(s)) < 0) goto out;
			break;
		case MATCH_LENGTH:
			if (!read_length(s, &ip, iend)) goto starved;
			if (s->in_pos + 4 > s->in_total) goto corrupt;
			s->length += MINMATCH;
			if ((status = match_begin(s)) < 0) goto out;
			break;
		case MATCH: {
			uint64_t n = s->length;
			if (n > (uint64_t)(oend - op)) n = (uint64_t)(oend - op);
			copy_match(op, s->offset, (uint32_t)n);
			op += n;
			s->out_pos += n;
			s->length -= n;
			if (s->length > 0) goto full;
			s->phase = TOKEN;
			break;
		}
		default:
			goto corrupt;
		}
	}
starved:
	/* The input ran out: the block is corrupt if that was all of it. */
	status = final ? STEPS_CORRUPT : STEPS_NEED_INPUT;
	goto out;
full:
	status = STEPS_OUTPUT_FULL;
	goto out;
corrupt:
	status = STEPS_CORRUPT;
out:
	s->consumed = (uint32_t)(ip - input);
	s->produced = (uint32_t)(op - start);
	return status;
}
