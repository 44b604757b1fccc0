// The first statement of the app's bundle to run: a User Timing mark,
// BOOT_MARK, where the app's own code starts (the document fetched and the
// bundle parsed). Start figures measured from it leave out how long the
// webview took to launch and load the document, whose spread from start to
// start is none of the app's doing; the desktop self-test's page bench
// times extensions' cost from here too.
export const BOOT_MARK = 'hearth:boot';

globalThis.performance?.mark?.(BOOT_MARK);
