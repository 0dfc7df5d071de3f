import type { PermissionTarget, ToolUseContext } from '../../core/index.ts';
import { resolveToolPath } from './paths.ts';

/**
 * What a tool whose input names one path declares to the runtime: the path rules should match (made
 * absolute against the cwd; the cwd itself when the field is optional and absent), and the backfill
 * that shows hooks and the permission engine that absolute path.
 */
export function pathDeclarations<Field extends string>(field: Field, access: 'read' | 'write') {
  return {
    permissionTarget: (
      input: { [Key in Field]?: string | undefined },
      context: ToolUseContext,
    ): PermissionTarget => {
      const value = input[field];
      return { kind: 'path', path: value ? resolveToolPath(value, context) : context.run.cwd, access };
    },
    backfillObservableInput: (input: Record<string, unknown>, context: ToolUseContext): void => {
      const value = input[field];
      if (typeof value === 'string') input[field] = resolveToolPath(value, context);
    },
  };
}
