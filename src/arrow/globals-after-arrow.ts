import { globalsBeforeArrow, TSLIB_GLOBAL_NAME } from "./globals-before-arrow.js";

/**
 * apache-arrow imports tslib's ES module entry, which loads tslib's CommonJS file, and that file also defines each
 * of its ~30 helpers (`__awaiter`, `__extends`, `__generator`...) as a global, replacing any the host had. No module
 * of apache-arrow or tslib reads them back from there (they use the bindings they import), so the globals are put
 * back as they were before apache-arrow was evaluated: the names it added deleted, a host's own of those names
 * given back its value. Importing this library leaves the host's globals as it found them.
 */
function restoreGlobals(before: typeof globalsBeforeArrow): void {
	for (const name of Object.getOwnPropertyNames(globalThis)) {
		if (!TSLIB_GLOBAL_NAME.test(name)) continue;
		const own = before.properties.get(name);
		if (own !== undefined) Object.defineProperty(globalThis, name, own);
		else if (!before.names.has(name)) Reflect.deleteProperty(globalThis, name);
	}
}

restoreGlobals(globalsBeforeArrow);
