/** Result budgeting: oversized tool results go to disk and come back as a preview with the path. */
export * from './persist.ts';
export * from './preview.ts';
export * from './result-budget.ts';
