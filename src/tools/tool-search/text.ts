/**
 * Text analysis for tool search: names split into words (camelCase, snake_case, kebab-case, `__`),
 * a light English stemmer, stop words, and the synonym groups a model's wording most often misses.
 */

const stopWords = new Set(
  (
    'a an and are as at be by can do does for from has have how i if in into is it its me my of on ' +
    'or so that the their them then these this those to tool tools use used uses using via want was ' +
    'we were what when where which while who will with you your'
  ).split(' '),
);

/** Splits an identifier or a sentence into lower-case words: `getPullRequest` → get, pull, request. */
export function splitWords(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/([a-zA-Z])([0-9])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 0);
}

const irregular = new Map<string, string>(
  Object.entries({
    children: 'child',
    people: 'person',
    indices: 'index',
    indexes: 'index',
    statuses: 'status',
    aliases: 'alias',
    analyses: 'analysis',
    queries: 'query',
    entries: 'entry',
    ran: 'run',
    running: 'run',
    wrote: 'write',
    written: 'write',
    writing: 'write',
    sent: 'send',
    got: 'get',
    made: 'make',
    making: 'make',
    bought: 'buy',
  }),
);

const keepAsIs = new Set([
  'status',
  'analysis',
  'process',
  'access',
  'address',
  'class',
  'alias',
  'https',
  'css',
]);

/**
 * A light suffix stemmer (plural, -ing, -ed, -ies): enough to make "issues"/"issue",
 * "listing"/"list", "created"/"create" meet, cheap, and predictable on identifiers.
 */
export function stem(word: string): string {
  const known = irregular.get(word);
  if (known !== undefined) return known;
  if (word.length <= 3 || keepAsIs.has(word) || /[0-9]/.test(word)) return word;
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  if (word.endsWith('sses')) return word.slice(0, -2);
  if (/(?:ches|shes|xes|zes)$/.test(word)) return word.slice(0, -2);
  if (word.endsWith('ss') || word.endsWith('us') || word.endsWith('is')) return word;
  if (word.endsWith('s')) return word.slice(0, -1);
  // A stem needs a vowel: "string" and "thing" are words, not verb forms.
  if (word.endsWith('ing') && word.length > 5 && /[aeiouy]/.test(word.slice(0, -3)))
    return undouble(word.slice(0, -3));
  if (word.endsWith('ed') && word.length > 4 && !word.endsWith('eed') && /[aeiouy]/.test(word.slice(0, -2))) {
    const base = word.slice(0, -2);
    if (base.endsWith('i')) return `${base.slice(0, -1)}y`;
    return undouble(base);
  }
  return word;
}

/** `stopp` → `stop`; `creat` → `create`, so -ing and -ed forms meet the bare verb. */
function undouble(base: string): string {
  if (/([b-df-hj-np-tv-z])\1$/.test(base) && !/(?:ll|ss|zz)$/.test(base)) return base.slice(0, -1);
  if (/(?:at|iz|bl|ov|in|ag|iv|ur|as|uc|ag|ot|et|ut|os|ar|ud|rg|nc|ng)$/.test(base) && base.length > 3)
    return `${base}e`;
  return base;
}

const normalized = new Map<string, string>();

/** Normalises one word for matching: stemmed, with a trailing `e` dropped so `create`/`creat` meet. */
export function normalize(word: string): string {
  let result = normalized.get(word);
  if (result === undefined) {
    const stemmed = stem(word);
    result = stemmed.length > 4 && stemmed.endsWith('e') ? stemmed.slice(0, -1) : stemmed;
    // Words repeat across descriptions; the cache is bounded so odd input cannot grow it without end.
    if (normalized.size < 50_000) normalized.set(word, result);
  }
  return result;
}

/** Abbreviations models and people type, spelled out the way tool names and descriptions say them. */
const abbreviations = new Map<string, string>(
  Object.entries({
    pr: 'pull request',
    prs: 'pull requests',
    mr: 'merge request',
    mrs: 'merge requests',
    mkdir: 'create directory',
    rmdir: 'remove directory',
    ls: 'list',
    rm: 'remove',
    mv: 'move',
    cp: 'copy',
    repo: 'repository',
    repos: 'repositories',
    db: 'database',
    k8s: 'kubernetes',
    env: 'environment',
    msg: 'message',
    dm: 'direct message',
    js: 'javascript',
    ts: 'typescript',
    ci: 'ci pipeline',
    kb: 'knowledge base',
    ocr: 'text from image',
  }),
);

/** Words of a text, stop words removed, abbreviations spelled out, normalised. */
export function terms(text: string): string[] {
  return splitWords(text)
    .flatMap((word) => abbreviations.get(word)?.split(' ') ?? [word])
    .filter((word) => !stopWords.has(word))
    .map(normalize);
}

/**
 * Groups of words a model uses for the same thing. A query word also matches the other words of its
 * groups, at a lower weight than the word itself.
 */
const synonymGroups: readonly (readonly string[])[] = [
  ['remove', 'delete', 'rm', 'erase', 'destroy', 'drop', 'unlink', 'discard', 'purge', 'trash', 'forget'],
  ['undo', 'revert', 'reset', 'rollback', 'restore'],
  ['multiple', 'several', 'many', 'batch', 'bulk'],
  ['coordinate', 'latitude', 'longitude', 'lat', 'lng'],
  ['list', 'get', 'fetch', 'retrieve', 'show', 'view', 'read', 'enumerate', 'browse', 'lookup'],
  ['create', 'add', 'new', 'make', 'insert', 'open', 'post', 'register', 'start'],
  ['update', 'edit', 'modify', 'change', 'patch', 'set', 'rename', 'replace', 'alter', 'amend'],
  ['search', 'find', 'query', 'lookup', 'locate', 'filter', 'look'],
  ['issue', 'ticket', 'bug', 'task', 'work', 'item'],
  ['pr', 'pull', 'merge'],
  ['repo', 'repository', 'project'],
  ['dir', 'directory', 'folder'],
  ['db', 'database', 'sql', 'table'],
  ['k8s', 'kubernetes', 'kubectl', 'cluster'],
  ['message', 'msg', 'chat', 'post'],
  ['send', 'post', 'notify', 'reply', 'publish'],
  ['email', 'mail', 'gmail', 'inbox'],
  ['run', 'execute', 'exec', 'invoke', 'launch', 'trigger', 'call'],
  ['stop', 'kill', 'terminate', 'cancel', 'abort', 'halt', 'interrupt'],
  ['screenshot', 'capture', 'snapshot', 'screen', 'image'],
  ['navigate', 'goto', 'visit', 'open', 'browse', 'load', 'url'],
  ['click', 'press', 'tap'],
  ['type', 'fill', 'enter', 'input', 'write'],
  ['doc', 'document', 'documentation', 'docs', 'page', 'manual', 'reference'],
  ['web', 'internet', 'online', 'website', 'site'],
  ['user', 'member', 'person', 'people', 'account', 'profile'],
  ['comment', 'reply', 'note', 'review'],
  ['file', 'document'],
  ['log', 'logs', 'output', 'trace'],
  ['error', 'exception', 'crash', 'failure', 'issue'],
  ['deploy', 'deployment', 'release', 'ship', 'rollout'],
  ['pipeline', 'workflow', 'build', 'ci', 'job'],
  ['scrape', 'crawl', 'extract', 'fetch'],
  ['download', 'fetch', 'pull', 'save'],
  ['upload', 'push', 'put'],
  ['memory', 'knowledge', 'graph', 'remember', 'entity'],
  ['place', 'location', 'address', 'map', 'geo', 'geocode'],
  ['direction', 'route', 'navigation', 'distance'],
  ['calendar', 'event', 'meeting', 'schedule'],
  ['spreadsheet', 'sheet', 'excel', 'csv'],
  ['channel', 'room', 'conversation'],
  ['branch', 'ref'],
  ['key', 'secret', 'token', 'credential'],
  ['env', 'environment', 'variable', 'config', 'setting'],
  ['count', 'stat', 'statistic', 'metric', 'usage'],
  ['move', 'mv', 'rename', 'relocate'],
  ['copy', 'cp', 'duplicate', 'clone'],
  ['tab', 'window'],
  ['payment', 'charge', 'invoice', 'billing', 'pay'],
  ['customer', 'client', 'contact'],
  ['container', 'pod', 'docker'],
  ['explain', 'describe', 'detail', 'info', 'inspect'],
];

let synonymTable: Map<string, Set<string>> | undefined;

/** The normalised synonym groups by word, built at the first search rather than at import. */
function synonymsOf(): Map<string, Set<string>> {
  if (synonymTable) return synonymTable;
  synonymTable = new Map();
  for (const group of synonymGroups) {
    const normalized = group.map(normalize);
    for (const word of normalized) {
      const set = synonymTable.get(word) ?? new Set<string>();
      for (const other of normalized) if (other !== word) set.add(other);
      synonymTable.set(word, set);
    }
  }
  return synonymTable;
}

/** The other words of a normalised word's synonym groups (normalised too). */
export function synonyms(term: string): readonly string[] {
  return [...(synonymsOf().get(term) ?? [])];
}
