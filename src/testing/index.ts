/** Test doubles for code built on efferent: a scripted model, scripted tools and real temporary workspaces. */
export {
  createScriptedProvider,
  type ScriptedProvider,
  type ScriptedProviderOptions,
} from '../providers/replay.ts';
export type { ScriptedEvent, ScriptedTurn } from '../providers/session-file.ts';
export {
  createScriptedTool,
  type ScriptedCall,
  type ScriptedTool,
  type ScriptedToolOptions,
} from './scripted-tool.ts';
export { createTempWorkspace, type TempWorkspace, type TempWorkspaceOptions } from './temp-workspace.ts';
export { TurnBuilder, turn } from './turn-builder.ts';
