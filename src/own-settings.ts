/**
 * Settings objects the package's own stages made for a public class (TableReader, TableBatcher): they carry fields
 * of the pipeline that the public option types do not show (a pool, the rows of a time range, the counting of
 * nulls), and are taken as they are; a caller's options are checked by name, and an internal name is refused as any
 * unknown one is. Marked by identity, so a caller cannot make one.
 */
const own = new WeakSet<object>();

/** `settings`, marked as the package's own. */
export function ownSettings<T extends object>(settings: T): T {
	own.add(settings);
	return settings;
}

/** Whether `options` is a settings object the package made (ownSettings). */
export const isOwnSettings = (options: unknown): boolean => typeof options === "object" && options !== null && own.has(options);
