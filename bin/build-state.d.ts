/** The package's CLI bundle, and whether it is current (built, with no source changed after it). */
export function buildState(root: string): { bundle: string; sources: string; current: boolean };
