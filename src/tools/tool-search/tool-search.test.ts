import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type AnyTool, buildTool, createToolUseContext, deferredToolsKey } from '../../core/index.ts';
import { parseKeywords, type SearchableTool, searchTools, ToolSearchIndex } from './search-index.ts';
import { normalize, splitWords, stem } from './text.ts';
import { ToolSearchTool } from './tool-search.ts';

const catalog: SearchableTool[] = [
  {
    name: 'mcp__github__create_issue',
    server: 'github',
    description: 'Create a new issue in a GitHub repository',
    inputSchema: { type: 'object', properties: { owner: {}, repo: {}, title: {}, body: {} } },
  },
  {
    name: 'mcp__github__create_pull_request',
    server: 'github',
    description: 'Create a new pull request in a GitHub repository',
    inputSchema: { type: 'object', properties: { owner: {}, repo: {}, head: {}, base: {} } },
  },
  {
    name: 'mcp__github__list_issues',
    server: 'github',
    description: 'List issues in a GitHub repository with filtering options',
    inputSchema: {
      type: 'object',
      properties: { state: { type: 'string', enum: ['open', 'closed', 'all'] }, labels: {} },
    },
  },
  {
    name: 'mcp__gitlab__create_issue',
    server: 'gitlab',
    description: 'Create a new issue in a GitLab project',
  },
  {
    name: 'mcp__filesystem__move_file',
    server: 'filesystem',
    description: 'Move or rename files and directories.',
    inputSchema: { type: 'object', properties: { source: {}, destination: {} } },
  },
  {
    name: 'mcp__filesystem__write_file',
    server: 'filesystem',
    description: 'Create a new file or completely overwrite an existing file with new content.',
  },
  {
    name: 'mcp__playwright__browser_take_screenshot',
    server: 'playwright',
    description: 'Take a screenshot of the current page.',
  },
  { name: 'NotebookEdit', description: 'Replace the contents of a cell in a Jupyter notebook.' },
  { name: 'alpha_tool', description: 'Same words.' },
  { name: 'beta_tool', description: 'Same words.' },
];
const index = new ToolSearchIndex(catalog);
const search = (query: string, limit = 5) => searchTools(index, query, limit).matches;

describe('tool search text analysis', () => {
  it('splits camelCase, snake_case, kebab-case and digits, and stems plurals and verb forms', () => {
    expect(splitWords('getPullRequest')).toEqual(['get', 'pull', 'request']);
    expect(splitWords('mcp__google-maps__maps_geocode')).toEqual([
      'mcp',
      'google',
      'maps',
      'maps',
      'geocode',
    ]);
    expect(splitWords('HTTPServer2')).toEqual(['http', 'server', '2']);
    expect(stem('issues')).toBe('issue');
    expect(stem('repositories')).toBe('repository');
    expect(normalize('creating')).toBe(normalize('create'));
    expect(normalize('deleted')).toBe(normalize('delete'));
    expect(stem('status')).toBe('status');
    expect(stem('string')).toBe('string');
    expect(stem('speed')).toBe('speed');
  });

  it('reads +required terms and keeps a lone stop word', () => {
    expect(parseKeywords('+slack send a message')).toEqual({
      terms: ['slack', 'send', normalize('message')],
      required: ['slack'],
    });
    expect(parseKeywords('get').terms).toEqual(['get']);
  });

  it('spells out abbreviations, and treats words named like object properties as words', () => {
    expect(parseKeywords('merge PR').terms).toEqual(['merg', 'pull', 'request']);
    expect(parseKeywords('mkdir').terms).toEqual([normalize('create'), 'directory']);
    expect(parseKeywords('constructor toString __proto__').terms).toEqual(['constructor', 'string', 'proto']);
  });
});

describe('tool search ranking', () => {
  it('ranks by name words, server, description and synonyms', () => {
    expect(search('github create issue')[0]).toBe('mcp__github__create_issue');
    expect(search('gitlab new ticket')[0]).toBe('mcp__gitlab__create_issue');
    expect(search('open a PR')[0]).toBe('mcp__github__create_pull_request');
    expect(search('rename a file')[0]).toBe('mcp__filesystem__move_file');
    expect(search('capture the page as an image')[0]).toBe('mcp__playwright__browser_take_screenshot');
    expect(search('jupyter')[0]).toBe('NotebookEdit');
  });

  it('indexes parameter names and enum values', () => {
    expect(search('closed')[0]).toBe('mcp__github__list_issues');
    expect(search('destination')[0]).toBe('mcp__filesystem__move_file');
  });

  it('drops tools without a +required term, and caps results', () => {
    expect(search('+gitlab create issue')).toEqual(['mcp__gitlab__create_issue']);
    expect(search('create', 2)).toHaveLength(2);
    expect(search('nothing-like-this-anywhere')).toEqual([]);
  });

  it('breaks ties by name, whatever the catalog order', () => {
    expect(search('same words')).toEqual(['alpha_tool', 'beta_tool']);
    const reversed = new ToolSearchIndex([...catalog].reverse());
    expect(searchTools(reversed, 'same words').matches).toEqual(['alpha_tool', 'beta_tool']);
  });

  it('answers select:, exact names and server prefixes directly', () => {
    expect(searchTools(index, 'select:NotebookEdit, mcp__github__list_issues,Nope')).toEqual({
      matches: ['NotebookEdit', 'mcp__github__list_issues'],
      kind: 'select',
      unknown: ['Nope'],
    });
    expect(searchTools(index, 'notebookedit')).toMatchObject({ matches: ['NotebookEdit'], kind: 'exact' });
    expect(searchTools(index, 'mcp__github', 10)).toEqual({
      matches: ['mcp__github__create_issue', 'mcp__github__create_pull_request', 'mcp__github__list_issues'],
      kind: 'server',
      unknown: [],
    });
    expect(searchTools(index, 'mcp__github', 2).matches).toHaveLength(2);
  });
});

function mcpTool(server: string, tool: string, description: string): AnyTool {
  return buildTool({
    name: `mcp__${server}__${tool}`,
    inputSchema: z.record(z.string(), z.unknown()),
    inputJSONSchema: { type: 'object', properties: { channel_id: { type: 'string' } } },
    prompt: description,
    mcpInfo: { serverName: server, toolName: tool },
    call: async () => ({ data: 'ok' }),
  });
}

describe('ToolSearch', () => {
  it('searches the deferred tools, loads its matches and references them in the result', async () => {
    const pool = [
      ToolSearchTool,
      mcpTool('slack', 'post_message', 'Post a new message to a Slack channel'),
      mcpTool('slack', 'list_channels', 'List public channels in the workspace'),
      mcpTool('github', 'search_code', 'Search code across repositories'),
    ];
    const context = createToolUseContext({ cwd: '/nonexistent', tools: pool });
    const state = context.run.resources?.get(deferredToolsKey);
    state?.setDeferred(pool.slice(1).map((tool) => tool.name));
    const result = await ToolSearchTool.call(
      { query: 'send slack message', max_results: 1 },
      context,
      async () => ({ behavior: 'allow', trace: [] }),
      () => {},
      't1',
    );
    expect(result.data.matches).toEqual(['mcp__slack__post_message']);
    expect(result.data.totalDeferredTools).toBe(3);
    expect(state?.isLoaded('mcp__slack__post_message')).toBe(true);
    expect(state?.isLoaded('mcp__slack__list_channels')).toBe(false);
    const block = ToolSearchTool.mapResultToBlock(result.data, 't1');
    expect(block.toolReferences).toEqual(['mcp__slack__post_message']);
    expect(block.content).toContain('Loaded 1 tool: mcp__slack__post_message.');

    const none = await ToolSearchTool.call(
      { query: 'select:Missing' },
      context,
      async () => ({ behavior: 'allow', trace: [] }),
      () => {},
      't2',
    );
    const text = String(ToolSearchTool.mapResultToBlock(none.data, 't2').content);
    expect(text).toContain('No deferred tool matched');
    expect(text).toContain('Not found: Missing.');
    expect(ToolSearchTool.mapResultToBlock(none.data, 't2').toolReferences).toBeUndefined();
  });

  it('is never deferred, read-only and safe to run in parallel', () => {
    expect(ToolSearchTool.alwaysLoad).toBe(true);
    expect(ToolSearchTool.shouldDefer).toBe(false);
    expect(ToolSearchTool.isReadOnly({ query: 'x' })).toBe(true);
    expect(ToolSearchTool.inputSchema.safeParse({ query: '' }).success).toBe(false);
  });
});
