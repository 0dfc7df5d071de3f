/** Test doubles for code built on efferent: scripted tools and real temporary workspaces. */
export * from './scripted-tool.ts';
export * from './temp-workspace.ts';
