/** Edits (insert, delete, replace, swap two neighbours) that turn `a` into `b`: how far a typo is from a name. */
function editDistance(a: string, b: string): number {
	const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
	for (let i = 1; i <= a.length; i++) {
		for (let j = 1; j <= b.length; j++) {
			const cost = a[i - 1] === b[j - 1] ? 0 : 1;
			rows[i][j] = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost);
			if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) rows[i][j] = Math.min(rows[i][j], rows[i - 2][j - 2] + 1);
		}
	}
	return rows[a.length][b.length];
}

/**
 * The candidate a mistyped `given` most likely meant, or undefined when none is close: at most one edit for
 * names up to 4 characters, two beyond (`--uint` -> `--unit`, `inspct` -> `inspect`).
 * A candidate that starts with what was given counts as close too (`--concur` -> `--concurrency`).
 */
export function closest(given: string, candidates: Iterable<string>): string | undefined {
	const typed = given.toLowerCase();
	let best: string | undefined;
	let bestDistance = Infinity;
	for (const candidate of candidates) {
		const distance = typed.length >= 3 && candidate.startsWith(typed) ? 1 : editDistance(typed, candidate.toLowerCase());
		if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
	}
	return bestDistance <= (typed.length <= 4 ? 1 : 2) ? best : undefined;
}

/** ` (did you mean X?)`, or nothing when no candidate is close. */
export function didYouMean(given: string, candidates: Iterable<string>, spell: (name: string) => string = (name) => name): string {
	const match = closest(given, candidates);
	return match === undefined ? "" : ` (did you mean ${spell(match)}?)`;
}
