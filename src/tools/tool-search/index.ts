/** ToolSearch and the search behind it, for the registry, the CLI and benchmarks. */
export { loadCatalog, parseCatalog } from './catalog.ts';
export {
  type KeywordQuery,
  parseKeywords,
  type SearchableTool,
  searchTools,
  ToolSearchIndex,
  type ToolSearchResult,
} from './search-index.ts';
export { searchableTools, type ToolSearchOutput, ToolSearchTool } from './tool-search.ts';
