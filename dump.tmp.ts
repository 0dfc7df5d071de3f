import { loadShellParser } from './src/shell/parser.ts';
import { parseBash } from './src/shell/parser.ts';
await loadShellParser();
function show(n: any, d = 0): string {
  let s = ' '.repeat(d * 2) + (n.isNamed ? n.type : JSON.stringify(n.type)) + (n.childCount === 0 ? ' ' + JSON.stringify(n.text) : '') + '\n';
  for (const c of n.children) s += show(c, d + 1);
  return s;
}
for (const line of process.argv.slice(2)) {
  const o: any = parseBash(line);
  console.log('### ' + line + (o.tree.rootNode.hasError ? '  [ERROR]' : ''));
  console.log(show(o.tree.rootNode));
}
