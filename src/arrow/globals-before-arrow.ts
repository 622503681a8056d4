/** tslib's helpers are named `__` and a letter (see globals-after-arrow.ts). */
export const TSLIB_GLOBAL_NAME = /^__[a-z]/i;

/**
 * The globals before apache-arrow is first evaluated: every name, and the property of each that tslib's helpers
 * could replace. src/index.ts imports this module first, then apache-arrow, then globals-after-arrow.ts, which puts
 * them back.
 */
export const globalsBeforeArrow = {
	names: new Set(Object.getOwnPropertyNames(globalThis)) as ReadonlySet<string>,
	properties: new Map(
		Object.getOwnPropertyNames(globalThis)
			.filter((name) => TSLIB_GLOBAL_NAME.test(name))
			.map((name) => [name, Object.getOwnPropertyDescriptor(globalThis, name) as PropertyDescriptor]),
	) as ReadonlyMap<string, PropertyDescriptor>,
};
