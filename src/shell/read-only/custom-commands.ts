import type { CustomCheck } from './spec.ts';

/** Commands with their own read-only check (filled in by the per-command modules). */
export const customChecks: Record<string, CustomCheck> = {};
