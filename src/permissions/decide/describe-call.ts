import type { PermissionTarget } from '../../core/index.ts';

const collapse = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** The text on one line, cut to `limit` characters; a long text is only read as far as needed. */
const shorten = (text: string, limit = 160): string => {
  // Collapsing a prefix gives a prefix of the collapsed text: read more only while it is too short to cut.
  for (let length = limit * 4; length < text.length; length *= 4) {
    const head = text.slice(0, length).replace(/\s+/g, ' ').trimStart();
    if (head.length >= limit + 2) return `${head.slice(0, limit - 1)}…`;
  }
  const single = collapse(text);
  return single.length > limit ? `${single.slice(0, limit - 1)}…` : single;
};

/** "run `git status`", "edit /srv/proj/a.ts", "fetch https://x" — the call in words, for messages. */
export function describeCall(toolName: string, target: PermissionTarget): string {
  switch (target.kind) {
    case 'command':
      return `run \`${shorten(target.command)}\``;
    case 'path':
      return `${target.access === 'read' ? 'read' : 'write'} ${shorten(target.path)} with ${toolName}`;
    case 'url':
      return `fetch ${shorten(target.url)}`;
    case 'agent':
      return `start a ${target.agentType} agent`;
    case 'skill':
      return `use the skill ${target.skill}`;
    case 'none':
      return `use ${toolName}`;
  }
}

/** The sentence the model gets when a call is denied. */
export function denialMessage(call: string, reason: string): string {
  return `Permission to ${call} was denied: ${reason}. Do not retry it; ask the user or choose another approach.`;
}

/** The sentence shown when a call needs approval. */
export function askMessage(call: string, reason: string): string {
  return `Permission to ${call} needs the user's approval: ${reason}.`;
}

/** The sentence the model gets when nobody could approve a call that needed approval. */
export function unapprovedMessage(call: string, reason: string, why: string): string {
  return `Permission to ${call} was not granted: it needs approval (${reason}) and ${why}. Do not retry it; ask the user to allow it or choose another approach.`;
}
