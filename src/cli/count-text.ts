/**
 * Counts as the CLI prints them, grouped by thousands with commas ("20,000,000"): what `toLocaleString("en")`
 * gives, without its first call's ICU set-up (31 ms on the 2-core reference machine, paid by every export for its
 * last line).
 */
export function countText(count: number): string {
	if (!Number.isSafeInteger(count)) return String(count);
	const digits = String(Math.abs(count));
	let grouped = digits.slice(0, digits.length % 3 || 3);
	for (let at = grouped.length; at < digits.length; at += 3) grouped += `,${digits.slice(at, at + 3)}`;
	return count < 0 ? `-${grouped}` : grouped;
}
