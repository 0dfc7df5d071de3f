import type { AnyTool } from '../core/index.ts';
import { BashTool } from '../tools/bash/bash.ts';
import { EditTool } from '../tools/edit/edit.ts';
import { GlobTool } from '../tools/glob/glob.ts';
import { GrepTool } from '../tools/grep/grep.ts';
import { MultiEditTool } from '../tools/multi-edit/multi-edit.ts';
import { NotebookEditTool } from '../tools/notebook-edit/notebook-edit.ts';
import { PowerShellTool } from '../tools/powershell/powershell.ts';
import { ReadTool } from '../tools/read/read.ts';
import { ReplTool } from '../tools/repl/repl.ts';
import { SleepTool } from '../tools/sleep/sleep.ts';
import { TaskOutputTool } from '../tools/task-output/task-output.ts';
import { TaskStopTool } from '../tools/task-stop/task-stop.ts';
import { ThinkTool } from '../tools/think/think.ts';
import { TodoWriteTool } from '../tools/todo-write/todo-write.ts';
import { WriteTool } from '../tools/write/write.ts';
import { type FeatureFlags, featureFlagsFromEnv } from './feature-flags.ts';

/**
 * Every built-in tool this process could offer: the single source of truth. Conditional tools sit
 * behind feature flags so a bundler can drop the disabled ones.
 */
export function getAllBaseTools(flags: FeatureFlags = featureFlagsFromEnv()): AnyTool[] {
  const tools: AnyTool[] = [
    // built-in tools are listed here, one line each
    BashTool,
    TaskOutputTool,
    TaskStopTool,
    ReadTool,
    WriteTool,
    EditTool,
    MultiEditTool,
    GlobTool,
    GrepTool,
    NotebookEditTool,
    ThinkTool,
    SleepTool,
  ];
  if (flags.todoWrite) tools.push(TodoWriteTool);
  if (flags.repl) tools.push(ReplTool);
  if (flags.powershell || PowerShellTool.isEnabled()) tools.push(PowerShellTool);
  return tools;
}
