import { describe, expect, it } from 'vitest';
import { applyStringEdit } from './string-edit.ts';

/** A small deterministic generator, so a failure names a reproducible seed. */
function generator(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  return {
    pick: <T>(items: readonly T[]) => items[Math.floor(next() * items.length)] as T,
    below: (n: number) => Math.floor(next() * n),
  };
}

describe('applyStringEdit across mixed line endings (generated)', () => {
  it('edits as if endings were folded, and keeps every untouched line its own ending', () => {
    for (let seed = 1; seed <= 500; seed++) {
      const random = generator(seed);
      const lines = Array.from(
        { length: 3 + random.below(8) },
        (_, index) => `line${index}-${random.pick(['a', 'b', 'c'])}`,
      );
      const endings = lines.map(() => random.pick(['\n', '\r\n']));
      if (!endings.includes('\r\n')) endings[0] = '\r\n';
      if (!endings.includes('\n')) endings[1] = '\n';
      const content = lines.map((line, index) => line + endings[index]).join('');
      const from = random.below(lines.length - 1);
      const to = from + 1 + random.below(Math.min(3, lines.length - from - 1));
      const oldString = lines.slice(from, to + 1).join('\n');
      const newString = Array.from({ length: 1 + random.below(4) }, (_, index) => `new${index}`).join('\n');
      const outcome = applyStringEdit(content, { old_string: oldString, new_string: newString });
      expect(outcome.ok, `seed ${seed}`).toBe(true);
      if (!outcome.ok) continue;
      const fold = (text: string) => text.replaceAll('\r\n', '\n');
      expect(fold(outcome.text), `seed ${seed}`).toBe(fold(content).replace(oldString, newString));
      // Lines before and after the edit keep their exact bytes.
      const before = lines
        .slice(0, from)
        .map((line, index) => line + endings[index])
        .join('');
      const after = lines
        .slice(to)
        .map((line, index) => line + endings[to + index])
        .join('')
        .slice(lines[to]?.length);
      expect(outcome.text.startsWith(before), `seed ${seed}`).toBe(true);
      expect(outcome.text.endsWith(after), `seed ${seed}`).toBe(true);
      // Every line break of the replacement is one of the endings it replaced.
      const replacedEndings = new Set(endings.slice(from, to));
      const middle = outcome.text.slice(before.length, outcome.text.length - after.length);
      for (const match of middle.matchAll(/\r?\n/g))
        expect(replacedEndings.has(match[0]), `seed ${seed}`).toBe(true);
    }
  });

  it('leaves pure LF text to the exact matcher', () => {
    expect(applyStringEdit('a\nb\n', { old_string: 'a\r\nb', new_string: 'x' })).toMatchObject({
      ok: true,
      text: 'x\n',
    });
    expect(applyStringEdit('a\nb\n', { old_string: 'zz', new_string: 'x' })).toMatchObject({ ok: false });
  });
});
