// Loaded into a CLI process by the tests (--import): the process sends itself DT64_TEST_SIGNAL (SIGTERM by default)
// as soon as it writes to stderr text matching DT64_TEST_SIGNAL_AFTER (a regular expression): a signal that arrives
// at a known point of the export (its first progress line: chunks are being read), whatever the CPU the test's own
// process gets. A signal sent by the test once it has read that line could come after the export had read every
// chunk, if the test's process was not scheduled meanwhile.
const pattern = new RegExp(process.env.DT64_TEST_SIGNAL_AFTER ?? "$^");
const signal = process.env.DT64_TEST_SIGNAL ?? "SIGTERM";
const write = process.stderr.write;
let sent = false;
process.stderr.write = function writeThenSignal(chunk, ...rest) {
	const result = write.call(this, chunk, ...rest);
	if (!sent && pattern.test(String(chunk))) {
		sent = true;
		process.kill(process.pid, signal);
	}
	return result;
};
